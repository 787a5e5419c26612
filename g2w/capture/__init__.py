"""Real gameplay footage from open-source engines, replayed twice: HUD on and HUD off.

`GAMES` maps a game's name to its module's `Game`; `g2w capture`, `ray_jobs.capture` and
`scripts/capture-deps.sh` all read this one registry.
"""

from __future__ import annotations

from g2w.capture.cube2 import Cube2
from g2w.capture.freedm import FreeDM
from g2w.capture.freedoom import Freedoom
from g2w.capture.game import Game

GAMES: dict[str, Game] = {g.name: g for g in (Freedoom(), FreeDM(), Cube2())}


def get_game(name: str) -> Game:
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}: choose from {sorted(GAMES)}")
    return GAMES[name]


def game_of_clip(clip: str) -> str:
    """The game a captured clip (its id, file name or path) comes from: the longest game name its
    id starts with (`freedoom2-demo2-s0061.mp4` -> freedoom); ValueError for another name."""
    clip_id = clip.replace("\\", "/").rsplit("/", 1)[-1]
    names = [name for name in GAMES if clip_id.startswith(name)]
    if not names:
        raise ValueError(f"{clip!r} is not a g2w capture clip id (they start with one of {sorted(GAMES)})")
    return max(names, key=len)
