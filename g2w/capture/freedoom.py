"""Freedoom (Phase 1 and 2) replayed by dsda-doom: exact HUD on/off pairs from the IWAD demos.

Each Freedoom IWAD carries four demo lumps. `-timedemo` with `-viddump` renders them on a
fixed timestep: one frame every 1/cap_fps of game time, whatever the machine's speed (35 game
tics make a second). `-skiptic` fast-forwards to the clip's start without drawing. Frames leave
the engine through `cap_videocommand`, a shell pipe we point at ffmpeg writing raw RGB, which
stops after the clip's frame count and drops a marker file so the engine can be ended.

HUD switch (screen size 11 = full-screen view in both runs, so the 3D view is identical):
the HUD run draws the full-screen HUD (`hud_displayed 1`), pickup/status messages
(`show_messages 1`) and the crosshair (`hudadd_crosshair 1`); the clean run turns all three
off. The demo progress bar and screen wipes are off in both runs.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess

from g2w.capture import wad
from g2w.capture.game import Demo, Game, Region
from g2w.capture.process import CaptureError, run_until

ENGINE = "/usr/games/dsda-doom"
IWAD_DIR = "/usr/share/games/doom"
IWADS = ("freedoom1", "freedoom2")

_COMMON = {
    "screenblocks": 11, "hudadd_demoprogressbar": 0, "render_wipescreen": 0, "cap_wipescreen": 0,
    "dsda_show_demo_attempts": 0, "cap_remove_tempfiles": 0, "uncapped_framerate": 1,
}
_HUD = {"hud_displayed": 1, "show_messages": 1, "hudadd_crosshair": 1}
_CLEAN = {"hud_displayed": 0, "show_messages": 0, "hudadd_crosshair": 0}


@functools.cache
def _file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _config_line(key: str, value) -> str:
    return f'{key} "{value}"' if isinstance(value, str) else f"{key} {value}"


class Freedoom(Game):
    name = "freedoom"
    packages = ("dsda-doom", "freedoom", "xvfb", "xauth", "ffmpeg")
    hud_toggle = "hud_displayed / show_messages / hudadd_crosshair (1 = HUD run, 0 = clean run) at screenblocks 11"
    paired = True
    # Fractions of the frame, measured on the 1280x720 lossless differences of the IWAD demos.
    layout = (
        Region("messages", "screen_notice", "transient", (0.0, 0.0, 1.0, 0.08)),
        Region("crosshair", "crosshair", "persistent", (0.45, 0.42, 0.55, 0.58)),
        Region("status", "player_status", "persistent", (0.0, 0.75, 0.5, 1.0)),
        Region("ammo", "weapon_ammo", "persistent", (0.5, 0.75, 1.0, 1.0)),
    )

    def iwads(self) -> list[str]:
        return [p for p in (os.path.join(IWAD_DIR, f"{n}.wad") for n in IWADS) if os.path.exists(p)]

    def available(self) -> str | None:
        if not os.access(ENGINE, os.X_OK):
            return f"{ENGINE} missing: run scripts/capture-deps.sh freedoom"
        if not self.iwads():
            return f"no Freedoom IWAD in {IWAD_DIR}: run scripts/capture-deps.sh freedoom"
        for tool in ("Xvfb", "ffmpeg"):
            if shutil.which(tool) is None:
                return f"{tool} missing: run scripts/capture-deps.sh freedoom"
        return None

    @functools.cache
    def version(self) -> str:
        try:
            out = subprocess.run([ENGINE, "-v"], capture_output=True, text=True, timeout=20,
                                 env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"}).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        engine = next((line.strip() for line in out.splitlines() if line.startswith("dsda-doom")), "dsda-doom ?")
        wads = ", ".join(f"{os.path.basename(p)} sha256:{_file_digest(p)}" for p in self.iwads())
        return f"{engine}; {wads}"

    def demos(self) -> list[Demo]:
        out = []
        for iwad in self.iwads():
            stem = os.path.splitext(os.path.basename(iwad))[0]
            for lump in wad.demo_lumps(iwad):
                tics = wad.demo_tics(wad.read_lump(iwad, lump))
                out.append(Demo(f"{stem}-{lump.lower()}", f"{iwad}:{lump}", tics / wad.TICRATE))
        return out

    def settings(self, hud: bool) -> dict:
        return {**_COMMON, **(_HUD if hud else _CLEAN)}

    def capture_run(self, demo, start_s, frames, hud, width, height, fps, workdir, timeout_s, display) -> str:
        os.makedirs(workdir, exist_ok=True)
        iwad, lump = demo.source.rsplit(":", 1)
        lmp = os.path.join(workdir, "demo.lmp")
        with open(lmp, "wb") as f:
            f.write(wad.read_lump(iwad, lump))
        raw, done = os.path.join(workdir, "frames.rgb"), os.path.join(workdir, "frames.done")
        for stale in (raw, done):
            if os.path.exists(stale):
                os.remove(stale)
        sink = (f"ffmpeg -nostats -loglevel error -f rawvideo -pix_fmt rgb24 -s %wx%h -r %r -i - "
                f"-frames:v {frames} -f rawvideo -y {raw} && touch {done}")
        config = {**self.settings(hud), "screen_resolution": f"{width}x{height}", "use_fullscreen": 0,
                  "exclusive_fullscreen": 0, "cap_fps": fps, "cap_videocommand": sink,
                  "cap_soundcommand": "cat > /dev/null", "cap_muxcommand": "true"}
        cfg = os.path.join(workdir, "dsda-doom.cfg")
        with open(cfg, "w") as f:
            f.write("\n".join(_config_line(k, v) for k, v in config.items()) + "\n")
        cmd = [ENGINE, "-iwad", iwad, "-config", cfg, "-nosound", "-noautoload", "-geometry", f"{width}x{height}w",
               "-vidmode", "sw", "-timedemo", lmp, "-viddump", os.path.join(workdir, "unused.mkv")]
        start_tic = round(start_s * wad.TICRATE)
        if start_tic > 0:
            cmd += ["-skiptic", str(start_tic)]
        home = os.path.join(workdir, "home")
        os.makedirs(home, mode=0o700, exist_ok=True)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "XDG_RUNTIME_DIR": home,
               "DISPLAY": display}
        result = run_until(cmd, env=env, cwd=workdir, timeout_s=timeout_s, log_path=os.path.join(workdir, "engine.log"),
                           done=lambda: os.path.exists(done))
        if result.finished_by == "timeout":
            raise CaptureError("engine_timeout", f"dsda-doom did not deliver {frames} frames in {timeout_s:.0f} s")
        got = os.path.getsize(raw) // (width * height * 3) if os.path.exists(raw) else 0
        if got != frames:
            raise CaptureError("demo_too_short" if result.returncode == 0 else "engine_failed",
                               f"{got}/{frames} frames (engine rc={result.returncode}): {result.log_tail[-400:]}")
        return raw
