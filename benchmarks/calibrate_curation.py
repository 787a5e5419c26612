"""Calibrate (and re-check) the curation thresholds on varied footage with known ground truth.

The footage mixes three sources, so the thresholds are not fitted to one look:
1. the four procedural games over every size (480p to 1080p, portrait and odd) and rate
   (24/30/60), with every event kind (cuts, idle, frozen, dark, blur, shake, replays) and baked HUDs;
2. the same videos re-encoded at crf 36, a low-bitrate upload's blocking and smearing;
3. photographic footage: real photographs (scikit-image's sample images: people, animals,
   vehicles, textures, space) filmed by a panning, zooming virtual camera with a moving object,
   through the same event timeline and HUD.
Every window is analysed by the real `AnalyzeWindows` step and labelled from the sidecars; the
script prints, per check, the measured values of the positives and of the clean negatives and the
hit and false-alarm rates of the configured thresholds.

Usage: python benchmarks/calibrate_curation.py [--workdir /tmp/g2w_calibration] [--seconds 20]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
from concurrent.futures import ProcessPoolExecutor

import cv2
import numpy as np

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import QualityThresholds
from g2w.sample_data.games import GAMES, Scene
from g2w.sample_data.generate import EVENTS, SIZES, VideoSpec, write_sample
from g2w.video.sources import probe_row

PHOTOS = (
    "astronaut.png",
    "chelsea.png",
    "coffee.png",
    "rocket.jpg",
    "motorcycle_left.png",
    "hubble_deep_field.jpg",
    "retina.jpg",
    "brick.png",
    "grass.png",
    "gravel.png",
    "camera.png",
    "moon.png",
)


class PhotoScene(Scene):
    """A real photograph seen by a panning, zooming camera, with an object crossing it."""

    def __init__(self, rng: np.random.Generator, width: int, height: int):
        super().__init__(rng, width, height)
        folder = os.path.join(importlib.util.find_spec("skimage").submodule_search_locations[0], "data")
        image = cv2.imread(os.path.join(folder, str(rng.choice(PHOTOS))), cv2.IMREAD_COLOR)
        self.photo = cv2.cvtColor(image, cv2.COLOR_BGR2RGB)
        ph, pw = self.photo.shape[:2]
        self.base = 1.25 * max(width / pw, height / ph)  # the frame always sees inside the photo
        self.phase = rng.uniform(0, 2 * np.pi, 3)
        self.color = tuple(int(c) for c in rng.integers(60, 255, 3))

    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        ph, pw = self.photo.shape[:2]
        zoom = self.base * (1.0 + 0.15 * np.sin(0.2 * cam_t + self.phase[0]))
        slack_x, slack_y = pw * zoom - self.width, ph * zoom - self.height
        x = -slack_x * (0.5 + 0.45 * np.sin(0.15 * cam_t + self.phase[1]))
        y = -slack_y * (0.5 + 0.45 * np.sin(0.11 * cam_t + self.phase[2]))
        frame = cv2.warpAffine(
            self.photo,
            np.float32([[zoom, 0, x], [0, zoom, y]]),
            (self.width, self.height),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REFLECT,
        )
        r = max(4, min(self.width, self.height) // 20)
        cx = int((0.1 + 0.8 * (0.5 + 0.5 * np.sin(0.9 * anim_t))) * self.width)
        cy = int((0.3 + 0.4 * (0.5 + 0.5 * np.cos(0.7 * anim_t))) * self.height)
        cv2.circle(frame, (cx, cy), r, self.color, -1, cv2.LINE_AA)
        return frame


def build(workdir: str, seconds: float) -> list[str]:
    GAMES["photo"] = PhotoScene
    raw = os.path.join(workdir, "raw")
    specs = []
    for i in range(12):  # procedural: every size, rate, game and event
        w, h = SIZES[i % len(SIZES)]
        specs.append(
            VideoSpec(
                21,
                i,
                w,
                h,
                (30, 24, 60)[i % 3],
                seconds,
                ("corridor", "topdown", "sidescroller", "racing")[i % 4],
                i % 3 == 1,
                EVENTS[i % 6],
            )
        )
    for i in range(12):  # photographic footage
        w, h = ((1280, 720), (854, 480), (720, 1280))[i % 3]
        specs.append(VideoSpec(22, i, w, h, (30, 24, 60)[i % 3], seconds, "photo", i % 3 == 1, EVENTS[i % 6]))
    paths = [write_sample(s, raw) for s in specs]
    lowq = os.path.join(workdir, "lowq")
    os.makedirs(lowq, exist_ok=True)
    for path in paths[:12:2] + paths[12::3]:  # a low-bitrate copy of some of each kind
        out = os.path.join(lowq, os.path.basename(path))
        if not os.path.exists(out):
            subprocess.run(
                [
                    "ffmpeg",
                    "-v",
                    "error",
                    "-y",
                    "-i",
                    path,
                    "-c:v",
                    "libx264",
                    "-crf",
                    "36",
                    "-preset",
                    "veryfast",
                    out,
                ],
                check=True,
            )
            shutil.copy(path[:-4] + ".json", out[:-4] + ".json")
        paths.append(out)
    return paths


def analyse(path: str) -> list[dict]:
    rows = AnalyzeWindows().analyze_source(probe_row(path))
    truth = json.load(open(path[:-4] + ".json"))
    for r in rows:
        r.pop("crop", None)
        r["truth"] = labels(truth, r["start_s"], r["end_s"])
        r["video"] = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))
    return rows


def labels(truth: dict, start: float, end: float) -> dict:
    """What the window truly is: which event spans cover it whole, whether a cut lies inside."""

    def inside(spans):
        return any(s["start_s"] <= start + 1e-6 and end <= s["end_s"] + 1e-6 for s in spans)

    kinds = {b["kind"] for b in truth["blocks"] if b["start_s"] < end - 1e-6 and b["end_s"] > start + 1e-6}
    return {
        "cut": any(start + 1e-6 < c["time_s"] < end - 1e-6 for c in truth["cuts"]),
        "frozen": inside(truth["frozen_spans"]),
        "dark": inside(truth["dark_spans"]),
        "blur": inside(truth["blur_spans"]),
        "shaky": inside(truth["shaky_spans"]),
        "hud": truth["hud"]["present"],
        "clean": kinds <= {"play", "idle", "duplicate"} and not truth["hud"]["present"],
        "style": truth["spec"]["style"],
    }


def report(rows: list[dict], q: QualityThresholds) -> None:
    checks = [
        ("scene_cut (cut_count > 0)", "cut", lambda r: r["cut_count"] > 0, "cut_score"),
        (
            f"too_dark (dark_fraction > {q.max_dark_fraction})",
            "dark",
            lambda r: r["dark_fraction"] > q.max_dark_fraction,
            "dark_fraction",
        ),
        (
            f"frozen (frozen_fraction > {q.max_frozen_fraction})",
            "frozen",
            lambda r: r["frozen_fraction"] > q.max_frozen_fraction,
            "frozen_fraction",
        ),
        (f"blurry (sharpness < {q.min_sharpness})", "blur", lambda r: r["sharpness"] < q.min_sharpness, "sharpness"),
        (f"shaky (shake > {q.max_shake})", "shaky", lambda r: r["shake"] > q.max_shake, "shake"),
        (
            f"ui_overlay (ui_coverage > {q.max_ui_coverage})",
            "hud",
            lambda r: r["ui_coverage"] > q.max_ui_coverage,
            "ui_coverage",
        ),
    ]
    ok = [r for r in rows if r["status"] == "ok"]
    print(f"{len(ok)} windows from {len({r['video'] for r in ok})} videos")
    for name, label, fires, value in checks:
        pos = [r for r in ok if r["truth"][label] and (label != "hud" or r["motion"] > 1.0)]
        neg = [r for r in ok if r["truth"]["clean"] and not r["truth"]["cut"]]
        hits = sum(fires(r) for r in pos)
        false = [r for r in neg if fires(r)]
        pv, nv = np.array([r[value] for r in pos]), np.array([r[value] for r in neg])
        print(
            f"\n{name}\n  positives {len(pos)}: caught {hits} ({hits / max(len(pos), 1):.0%}); "
            f"{value} min/median/max {pv.min():.4g}/{np.median(pv):.4g}/{pv.max():.4g}"
            if len(pv)
            else f"\n{name}: no positives"
        )
        print(
            f"  clean negatives {len(neg)}: false alarms {len(false)} ({len(false) / max(len(neg), 1):.1%}); "
            f"{value} min/median/max {nv.min():.4g}/{np.median(nv):.4g}/{nv.max():.4g}"
        )
        for r in false[:5]:
            print(f"    false alarm: {r['video']} {r['start_s']:.0f}s {r['truth']['style']} {value}={r[value]:.4g}")
        for r in [r for r in pos if not fires(r)][:8]:
            print(
                f"    missed: {r['video']} {r['start_s']:.0f}s {r['truth']['style']} {value}={r[value]:.4g} "
                f"motion={r['motion']:.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", default="/tmp/g2w_calibration")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    paths = build(args.workdir, args.seconds)
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        rows = [r for batch in pool.map(analyse, paths) for r in batch]
    report(rows, QualityThresholds())


if __name__ == "__main__":
    main()
