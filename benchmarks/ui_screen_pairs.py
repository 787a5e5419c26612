"""Curation's UI screens on HUD/clean pairs and clean clips: which windows each would reject for UI.

Every pair (synthesized samples, `g2w capture` cases) gives a HUD video and its clean twin, so
each window's right answer is known: the HUD window should exceed `max_ui_coverage` and the clean
one should not. `--clean` adds unpaired clean videos (e.g. a capture corpus's `clean/*.mp4` of a
game with no HUD pairs), which only have the second half of that answer. Both screens
(`static-edges`, `segmenter`) run through the real curation front end
(`AnalyzeWindows.analyze_source`, in this process, one thread) on the same windows. The true UI
coverage of each HUD window comes from the pair's `mask.mkv`, so HUD windows whose true coverage
is over the limit (those the rule should reject) are counted apart from all HUD windows.

Printed per source (synthesized / real:<game>) and screen: mean coverage of HUD and clean
windows, the share of HUD windows caught (all, and those truly over the limit) and of clean
windows kept at the threshold, and the same for a few other thresholds (a sweep, to read the
margin; the threshold is not fitted here).

Usage: python benchmarks/ui_screen_pairs.py PAIRS... [--clean VIDEO...] [--window-s 5]
       [--output ui_screen_pairs.json] [--results docs/results/ui_screen.md]
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict

import cv2
import numpy as np

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import QualityThresholds
from g2w.curate.ui_screen import mask_coverages
from g2w.io.results_page import markdown_table, write_results_page
from g2w.segment.task import sample_dirs, source_group
from g2w.video.sources import probe_row

SCREENS = ("static-edges", "segmenter")
SWEEP = (0.01, 0.02, 0.04, 0.08)


def window_coverages(step: AnalyzeWindows, video: str) -> list[tuple[float, float, float]]:
    """(start_s, end_s, coverage) of every analysed window of `video`."""
    return [
        (r["start_s"], r["end_s"], r["ui_coverage"])
        for r in step.analyze_source(probe_row(video))
        if r["status"] == "ok"
    ]


def rates(hud: list[float], truth: list[float], clean: list[float], threshold: float, limit: float) -> dict:
    hud, truth = np.array(hud), np.array(truth)
    over = truth > limit
    return {
        "hud_caught": float(np.mean(hud > threshold)) if hud.size else None,
        "truly_over_caught": float(np.mean(hud[over] > threshold)) if over.any() else None,
        "clean_kept": float(np.mean(np.array(clean) <= threshold)) if clean else None,
    }


def _fmt(x: float | None, digits: int = 2) -> str:
    return "  – " if x is None else f"{x:.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="*")
    parser.add_argument("--clean", nargs="*", default=[], help="unpaired clean videos (named by file: game-...)")
    parser.add_argument("--window-s", type=float, default=5.0)
    parser.add_argument("--output", default="ui_screen_pairs.json")
    parser.add_argument("--results", help="also write this Markdown results page")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    limit = QualityThresholds().max_ui_coverage
    found = defaultdict(lambda: {"hud": [], "truth": [], "clean": []})
    for screen in SCREENS:
        step = AnalyzeWindows(window_s=args.window_s, ui_detector=screen)
        for d in sample_dirs(args.pairs):
            cell = found[(source_group(d), screen)]
            hud = window_coverages(step, f"{d}/hud.mp4")
            cell["hud"] += [c for _, _, c in hud]
            cell["truth"] += mask_coverages(f"{d}/mask.mkv", [(start, end) for start, end, _ in hud])
            cell["clean"] += [c for _, _, c in window_coverages(step, f"{d}/clean.mp4")]
        for video in args.clean:
            game = os.path.basename(video).split("-")[0]
            found[(f"real:{game} (clean only)", screen)]["clean"] += [c for _, _, c in window_coverages(step, video)]
    results = []
    for (group, screen), cov in sorted(found.items()):
        row = {
            "source": group,
            "screen": screen,
            "hud_windows": len(cov["hud"]),
            "clean_windows": len(cov["clean"]),
            "truly_over_limit": int(np.sum(np.array(cov["truth"]) > limit)),
            "hud_mean": float(np.mean(cov["hud"])) if cov["hud"] else None,
            "true_mean": float(np.mean(cov["truth"])) if cov["truth"] else None,
            "clean_mean": float(np.mean(cov["clean"])) if cov["clean"] else None,
            "threshold": limit,
            **rates(cov["hud"], cov["truth"], cov["clean"], limit, limit),
            "sweep": {t: rates(cov["hud"], cov["truth"], cov["clean"], t, limit) for t in SWEEP},
        }
        results.append(row)
        means = " ".join(f"{k} {_fmt(row[k + '_mean'], 3)}" for k in ("hud", "true", "clean"))
        print(
            f"{group:28s} {screen:13s} windows hud {row['hud_windows']:3d} (truly over {row['truly_over_limit']:3d}) "
            f"clean {row['clean_windows']:3d}  coverage {means}"
        )
        for t, r in {limit: row, **row["sweep"]}.items():
            print(
                f"{'':42s} at {t}: HUD caught {_fmt(r['hud_caught'])} (truly over: {_fmt(r['truly_over_caught'])}), "
                f"clean kept {_fmt(r['clean_kept'])}"
            )
    with open(args.output, "w") as f:
        json.dump(results, f, indent=1)
    print(f"wrote {args.output}")
    if args.results:
        write_page(args, results, limit)


def write_page(args: argparse.Namespace, results: list[dict], limit: float) -> None:
    """The table of `results` as a docs/results page, the sweep as a second table."""
    main_rows = [
        [
            r["source"],
            r["screen"],
            r["hud_windows"],
            r["truly_over_limit"],
            _fmt(r["true_mean"], 3),
            _fmt(r["hud_mean"], 3),
            _fmt(r["clean_mean"], 3),
            _fmt(r["hud_caught"]),
            _fmt(r["truly_over_caught"]),
            _fmt(r["clean_kept"]),
        ]
        for r in results
    ]
    sweep_rows = [
        [r["source"], r["screen"], t, _fmt(s["hud_caught"]), _fmt(s["truly_over_caught"]), _fmt(s["clean_kept"])]
        for r in results
        for t, s in r["sweep"].items()
    ]
    body = "\n\n".join(
        [
            f"At the default `max_ui_coverage` {limit}: a HUD window should be rejected for UI, its clean twin kept.",
            markdown_table(
                [
                    "source",
                    "screen",
                    "HUD windows",
                    "truly over the limit",
                    "true coverage",
                    "HUD coverage",
                    "clean coverage",
                    "HUD caught",
                    "truly over caught",
                    "clean kept",
                ],
                main_rows,
            ),
            "At other thresholds (read the margin; the threshold is not fitted here):",
            markdown_table(
                ["source", "screen", "threshold", "HUD caught", "truly over caught", "clean kept"], sweep_rows
            ),
        ]
    )
    command = " ".join(["python benchmarks/ui_screen_pairs.py", *args.pairs, f"--results {args.results}"])
    notes = [
        "Coverage is the mean over a window's frames of the screen's UI share; true coverage comes from the pair's mask.",
        "Every window runs through the real curation front end, one thread, in this process.",
    ]
    write_results_page(args.results, "Curation's UI screens on real HUD/clean pairs", command, body, notes)


if __name__ == "__main__":
    main()
