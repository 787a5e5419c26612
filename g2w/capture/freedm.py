"""FreeDM replayed by dsda-doom: exact HUD on/off pairs from recorded multiplayer deathmatches.

FreeDM is Freedoom's deathmatch game, its own IWAD with its own 32 arenas. Its four demo
lumps are real netgames of three and four players (altdeath, 80 to 150 s each), seen from the
recording player's view: other players run, fight and respawn on screen, unlike the
single-player Freedoom demos. Everything else (engine, fixed-timestep `-viddump` capture, HUD
switch) is the Freedoom module's; only the IWAD and the HUD layout differ.
"""

from __future__ import annotations

from g2w.capture.freedoom import Freedoom


class FreeDM(Freedoom):
    name = "freedm"
    iwad_names = ("freedm",)
    packages = ("dsda-doom", "freedm", "xvfb", "xauth", "ffmpeg")
