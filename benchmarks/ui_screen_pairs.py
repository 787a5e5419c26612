"""Curation's UI screens on HUD/clean pairs: which windows each one would reject for UI.

Every pair (synthesized samples, `g2w capture` cases) gives a HUD video and its clean twin, so
each window's right answer is known: the HUD window should exceed `max_ui_coverage` and the clean
one should not. Both screens (`static-edges`, `segmenter`) run through the real curation front
end (`AnalyzeWindows.analyze_source`, in this process, one thread) on the same windows. Printed
per source (synthesized / real:<game>) and screen: mean coverage of HUD and clean windows, the
share of HUD windows caught and of clean windows kept at the threshold, and the same for a few
other thresholds (a sweep, to read the margin; the threshold is not fitted here).

Usage: python benchmarks/ui_screen_pairs.py PAIRS... [--window-s 2.5] [--output ui_screen_pairs.json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import cv2
import numpy as np

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import QualityThresholds
from g2w.segment.task import sample_dirs, source_group
from g2w.sources import probe_row

SCREENS = ("static-edges", "segmenter")
SWEEP = (0.01, 0.02, 0.04, 0.08)


def window_coverages(step: AnalyzeWindows, video: str) -> list[float]:
    return [r["ui_coverage"] for r in step.analyze_source(probe_row(video)) if r["status"] == "ok"]


def rates(hud: list[float], clean: list[float], threshold: float) -> dict:
    return {"hud_caught": float(np.mean(np.array(hud) > threshold)),
            "clean_kept": float(np.mean(np.array(clean) <= threshold))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--window-s", type=float, default=2.5)
    parser.add_argument("--output", default="ui_screen_pairs.json")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    threshold = QualityThresholds().max_ui_coverage
    found = defaultdict(lambda: {"hud": [], "clean": []})
    for screen in SCREENS:
        step = AnalyzeWindows(window_s=args.window_s, ui_detector=screen)
        for d in sample_dirs(args.pairs):
            for kind in ("hud", "clean"):
                found[(source_group(d), screen)][kind] += window_coverages(step, f"{d}/{kind}.mp4")
    results = []
    for (group, screen), cov in sorted(found.items()):
        row = {"source": group, "screen": screen, "windows": len(cov["hud"]),
               "hud_mean": round(float(np.mean(cov["hud"])), 4), "clean_mean": round(float(np.mean(cov["clean"])), 4),
               "threshold": threshold, **rates(cov["hud"], cov["clean"], threshold),
               "sweep": {t: rates(cov["hud"], cov["clean"], t) for t in SWEEP}}
        results.append(row)
        print(f"{group:18s} {screen:13s} windows {row['windows']:3d}  coverage hud {row['hud_mean']:.3f} "
              f"clean {row['clean_mean']:.3f}  at {threshold}: HUD caught {row['hud_caught']:.2f}, "
              f"clean kept {row['clean_kept']:.2f}")
        for t, r in row["sweep"].items():
            print(f"{'':33s} at {t}: HUD caught {r['hud_caught']:.2f}, clean kept {r['clean_kept']:.2f}")
    with open(args.output, "w") as f:
        json.dump(results, f, indent=1)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
