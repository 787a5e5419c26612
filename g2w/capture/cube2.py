"""BananaBread on the Cube 2 engine (Debian `cube2`, `cube2-data`): exact HUD on/off pairs of bot matches.

Each clip is a free-for-all match on one of the maps that ship bot waypoints: three bots
(skill 70) fight while we spectate, following one of them in first person. The HUD run draws the
engine's HUD (`hidehud 0`: console messages, crosshair, health/armour/ammo, the spectator line,
the fps counter); the clean run hides it (`hidehud 1`). The red damage screen and damage
compass ignore `hidehud`, so both runs turn them off. Names above the bots' heads are drawn in
the world by both runs and stay in the clean frames.

Timing is a faked clock: `fixedclock.c`, built here with the system C compiler and preloaded
into the engine, makes SDL_GetTicks count presented frames (exactly 1/fps of game time each,
however slowly the software renderer draws) and reads each frame before its buffer swap into a
raw RGB file. The game script makes a trigger file (a screenshot) `start_s` seconds into the
match; capture starts at the next frame and stops after the clip's frames.

Paired because the match is made to replay: the shim also fixes time() (the engine's random
seed, so every run of a map is the same match) and the addresses of the player objects (the
engine offsets each player's running animation by the low bits of its address), after which two
runs of a map are the same match frame for frame and a HUD run differs from a clean run in the
HUD. Not every pixel yet: a translucent smoke puff was seen to differ by a few hundred pixels
between runs; the pair check rejects a clip where such a difference outside the layout passes
its desync threshold.
"""

from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess

from g2w.capture.game import Demo, Game, Region
from g2w.capture.process import CaptureError, run_for_frames

ENGINE = "/usr/lib/cube2/cube2_client"
SHIM_SOURCE = os.path.join(os.path.dirname(__file__), "fixedclock.c")
DATA_DIR = "/usr/share/games/cube2"
MATCH_S = 20.0  # each map's match is planned as 20 s, so up to three 5 s windows per map ...
BOTS, BOT_SKILL = 3, 70
PLAYER_BYTES = 0x5A8  # sizeof(fpsent) in cube2 0.0.20201227 (its copy constructor copies 0xb5 quadwords)
_BOTH_RUNS = {"damagescreen": 0, "usedamagecompass": 0}  # drawn whatever hidehud says


class Cube2(Game):
    name = "cube2"
    packages = ("cube2", "cube2-data", "gcc", "libc6-dev", "xvfb", "xauth", "ffmpeg")
    hud_toggle = "hidehud 0 (HUD run) or 1 (clean run); damagescreen 0 and usedamagecompass 0 in both"
    paired = True
    # Fractions of the frame, measured on the 1280x720 lossless differences of a cyber1 pair.
    layout = (
        Region("console", "screen_notice", "transient", (0.0, 0.0, 0.6, 0.25)),
        Region("crosshair", "crosshair", "persistent", (0.47, 0.45, 0.53, 0.55)),
        Region("status", "player_status", "persistent", (0.0, 0.88, 0.3, 1.0)),
        Region("ammo", "weapon_ammo", "persistent", (0.3, 0.88, 0.5, 1.0)),
        Region("spectator", "player_status", "persistent", (0.82, 0.82, 1.0, 0.93)),
        Region("fps", "performance_debug", "persistent", (0.85, 0.93, 1.0, 1.0)),
    )

    def maps(self) -> list[str]:
        """Maps with bot waypoints (bots cannot move on the others)."""
        return sorted(
            os.path.basename(p)[:-4]
            for p in glob.glob(os.path.join(DATA_DIR, "packages/base/*.wpt"))
            if os.path.exists(p[:-4] + ".ogz")
        )

    def available(self) -> str | None:
        if not os.access(ENGINE, os.X_OK):
            return f"{ENGINE} missing: run scripts/capture-deps.sh cube2"
        if not self.maps():
            return f"no maps with waypoints in {DATA_DIR}: run scripts/capture-deps.sh cube2"
        return self.missing_tool(("Xvfb", "ffmpeg", "cc"))

    @functools.cache  # noqa: B019  (one instance per game for the whole process)
    def version(self) -> str:
        try:
            out = subprocess.run(
                ["dpkg-query", "-W", "-f", "${Package} ${Version}; ", "cube2", "cube2-data"],
                capture_output=True,
                text=True,
                timeout=20,
            ).stdout
        except (OSError, subprocess.TimeoutExpired):
            out = ""
        return out.strip("; ") or "cube2 ?"

    def demos(self) -> list[Demo]:
        return [Demo(f"cube2-{m}", m, MATCH_S) for m in self.maps()]

    def planned_s(self, demo: Demo, clip_s: float, margin_s: float) -> float:
        """... or, for a clip longer than MATCH_S allows, as long as one clip needs: the match runs
        on to the free-for-all time limit (minutes), and short clips keep their windows (and ids)."""
        return max(demo.duration_s, clip_s + 2 * margin_s)

    def settings(self, hud: bool) -> dict:
        return {
            "mode": 0,
            "bots": BOTS,
            "bot_skill": BOT_SKILL,
            "spectate": "nextfollow",
            "hidehud": 0 if hud else 1,
            **_BOTH_RUNS,
            "clock": "fixedclock.c: 1/fps of game time per frame, time() and player addresses fixed",
        }

    def capture_run(self, demo, start_s, frames, hud, width, height, fps, workdir, timeout_s, display) -> str:
        home = os.path.join(workdir, "home")
        os.makedirs(home, exist_ok=True)
        clock = os.path.join(workdir, "fixedclock.so")
        build = subprocess.run(
            ["cc", "-shared", "-fPIC", "-O2", "-o", clock, SHIM_SOURCE, "-ldl", "-pthread"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if build.returncode:
            raise CaptureError("engine_failed", f"building the clock shim failed: {build.stderr[-400:]}")
        raw, done = os.path.join(workdir, "frames.rgb"), os.path.join(workdir, "frames.done")
        shutil.rmtree(os.path.join(home, "screenshot"), ignore_errors=True)  # a trigger from an earlier run
        for stale in (raw, done):
            if os.path.exists(stale):
                os.remove(stale)
        bots = "; ".join([f"addbot {BOT_SKILL}"] * BOTS)
        # Game-time timers: bots join, we spectate one of them, and `start_s` s later the trigger appears.
        pinned = "; ".join(f"{k} {v}" for k, v in _BOTH_RUNS.items())
        script = (
            f"mode 0; maxfps 0; {pinned}; map {demo.source}; sleep 200 [{bots}]; sleep 400 [spectator 1]; "
            f"sleep 1000 [nextfollow; hidehud {0 if hud else 1}]; "
            f"sleep {round(1000 * (1 + start_s))} [screenshot trigger.png]"
        )
        cmd = [ENGINE, f"-q{home}", f"-w{width}", f"-h{height}", "-t0", f"-x{script}"]
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "DISPLAY": display,
            "LD_PRELOAD": clock,
            "G2W_FPS": str(fps),
            "G2W_FRAMES": str(frames),
            "G2W_W": str(width),
            "G2W_H": str(height),
            "G2W_OUT": raw,
            "G2W_DONE": done,
            "G2W_PIN_SIZE": str(PLAYER_BYTES),
            "G2W_TRIGGER": os.path.join(home, "screenshot", "trigger.png"),
        }
        return run_for_frames(
            "cube2",
            cmd,
            env=env,
            cwd=DATA_DIR,
            workdir=workdir,
            raw=raw,
            done=done,
            frames=frames,
            width=width,
            height=height,
            timeout_s=timeout_s,
        )
