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
import subprocess

from g2w.capture import wad
from g2w.capture.game import Demo, Game, Region
from g2w.capture.process import run_for_frames

ENGINE = "/usr/games/dsda-doom"
IWAD_DIR = "/usr/share/games/doom"

_COMMON = {
    "screenblocks": 11,
    "hudadd_demoprogressbar": 0,
    "render_wipescreen": 0,
    "cap_wipescreen": 0,
    "dsda_show_demo_attempts": 0,
    "cap_remove_tempfiles": 0,
    "uncapped_framerate": 1,
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
    iwad_names: tuple[str, ...] = ("freedoom1", "freedoom2")
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
        return [p for p in (os.path.join(IWAD_DIR, f"{n}.wad") for n in self.iwad_names) if os.path.exists(p)]

    def available(self) -> str | None:
        if not os.access(ENGINE, os.X_OK):
            return f"{ENGINE} missing: run scripts/capture-deps.sh {self.name}"
        if not self.iwads():
            return f"no {self.name} IWAD in {IWAD_DIR}: run scripts/capture-deps.sh {self.name}"
        return self.missing_tool()

    @functools.cache  # noqa: B019  (one instance per game for the whole process)
    def version(self) -> str:
        try:
            out = subprocess.run(
                [ENGINE, "-v"],
                capture_output=True,
                text=True,
                timeout=20,
                env={**os.environ, "XDG_RUNTIME_DIR": "/tmp"},
            ).stdout
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

    def engine_command(
        self, demo, start_s: float, hud: bool, width: int, height: int, fps: int, workdir: str, display: str, sink: str
    ) -> tuple[list[str], dict]:
        """The dsda-doom command and environment replaying `demo` from `start_s` into the shell pipe `sink`.

        `sink` reads the frames as raw RGB on stdin (`%w`, `%h`, `%r` are the engine's size and rate).
        """
        os.makedirs(workdir, exist_ok=True)
        iwad, lump = demo.source.rsplit(":", 1)
        lmp = os.path.join(workdir, "demo.lmp")
        with open(lmp, "wb") as f:
            f.write(wad.read_lump(iwad, lump))
        config = {
            **self.settings(hud),
            "screen_resolution": f"{width}x{height}",
            "use_fullscreen": 0,
            "exclusive_fullscreen": 0,
            "cap_fps": fps,
            "cap_videocommand": sink,
            "cap_soundcommand": "cat > /dev/null",
            "cap_muxcommand": "true",
        }
        cfg = os.path.join(workdir, "dsda-doom.cfg")
        with open(cfg, "w") as f:
            f.write("\n".join(_config_line(k, v) for k, v in config.items()) + "\n")
        cmd = [
            ENGINE,
            "-iwad",
            iwad,
            "-config",
            cfg,
            "-nosound",
            "-noautoload",
            "-geometry",
            f"{width}x{height}w",
            "-vidmode",
            "sw",
            "-timedemo",
            lmp,
            "-viddump",
            os.path.join(workdir, "unused.mkv"),
        ]
        start_tic = round(start_s * wad.TICRATE)
        if start_tic > 0:
            cmd += ["-skiptic", str(start_tic)]
        home = os.path.join(workdir, "home")
        os.makedirs(home, mode=0o700, exist_ok=True)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "XDG_RUNTIME_DIR": home,
            "DISPLAY": display,
        }
        return cmd, env

    def capture_run(self, demo, start_s, frames, hud, width, height, fps, workdir, timeout_s, display) -> str:
        raw, done = os.path.join(workdir, "frames.rgb"), os.path.join(workdir, "frames.done")
        for stale in (raw, done):
            if os.path.exists(stale):
                os.remove(stale)
        sink = (
            f"ffmpeg -nostats -loglevel error -f rawvideo -pix_fmt rgb24 -s %wx%h -r %r -i - "
            f"-frames:v {frames} -f rawvideo -y {raw} && touch {done}"
        )
        cmd, env = self.engine_command(demo, start_s, hud, width, height, fps, workdir, display, sink)
        return run_for_frames(
            "dsda-doom",
            cmd,
            env=env,
            cwd=workdir,
            workdir=workdir,
            raw=raw,
            done=done,
            frames=frames,
            width=width,
            height=height,
            timeout_s=timeout_s,
        )
