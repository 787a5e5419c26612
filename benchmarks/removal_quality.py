"""Mask-free removal quality per game, on exact clean/HUD pairs (`g2w capture` or synthesis output).

Per game (the case id up to its first '-'; cases without one form the group "all"):
- mask IoU of the segmenter's removal mask (before dilation, `REMOVAL_RULES`) against `mask.mkv`;
- PSNR inside the true mask against the clean reference, as a gain over the untouched input;
- mean |edit - source| outside the true mask (grey levels; the H.264 re-encode is part of it);
- the reference judge's AAR and BG (`g2w evaluate --judge reference`);
for `telea-gt` (oracle mask), `propagate` (mask-free, the previous default) and
`unblend+propagate` (mask-free, the default). Also the CPU speed of detection (`g2w detect`'s
segmenter with its full-resolution step) and of each whole removal, in frames per second of one
worker. Writes `quality.json` into OUTPUT and, with `--results`, the Markdown page there.

Usage: python benchmarks/removal_quality.py CASES --output DIR [--results docs/results/removal.md]
       [--checkpoint CKPT] [--methods A,B] [--games G,H] [--max-cases-per-game N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict

import numpy as np

from g2w.cases.case import load_cases
from g2w.io.results_page import markdown_table, write_results_page
from g2w.jobs.evaluate import run_evaluate
from g2w.jobs.remove import run_remove
from g2w.segment.mask_rules import REMOVAL_RULES
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter, full_mask
from g2w.segment.provenance import read_training, training_sentence
from g2w.video import iter_frames, iter_masks

METHODS = (("telea-gt", {}), ("propagate", {"mask": "segmenter"}), ("unblend+propagate", {"mask": "segmenter"}))
PATH_FIELDS = ("video", "reference", "mask", "annotation")


def game_of(case_id: str) -> str:
    return case_id.split("-")[0] if "-" in case_id else "all"


def game_listings(cases_path: str, out_dir: str, games: set[str] | None, per_game: int | None) -> dict[str, str]:
    """One cases JSONL per game under `out_dir`, its paths made absolute so it can live anywhere."""
    root = os.path.dirname(os.path.abspath(cases_path)) if os.path.isfile(cases_path) else os.path.abspath(cases_path)
    listing = cases_path if os.path.isfile(cases_path) else os.path.join(cases_path, "cases.jsonl")
    lines: dict[str, list[dict]] = defaultdict(list)
    with open(listing) as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            game = game_of(row["case_id"])
            if (games and game not in games) or (per_game and len(lines[game]) >= per_game):
                continue
            for key in PATH_FIELDS:
                if row.get(key) and not os.path.isabs(row[key]):
                    row[key] = os.path.join(root, row[key])
            lines[game].append(row)
    out = {}
    for game, rows in sorted(lines.items()):
        path = os.path.join(out_dir, "cases", f"{game}.jsonl")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
        out[game] = path
    return out


def mask_scores(cases, checkpoint: str | None) -> tuple[float, float]:
    """(removal-mask IoU, detection frames per second) over `cases`."""
    segmenter = Segmenter(checkpoint, threads=1, full_res=True)
    score, frames, seconds = SegmentationScore(), 0, 0.0
    for case in cases:
        start = time.perf_counter()
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask)):
            score.add_pixels(full_mask(pred, case.width, case.height, rules=REMOVAL_RULES) > 0, truth >= 128)
            frames += 1
        seconds += time.perf_counter() - start
    return score.result()["mask_iou"], frames / seconds if seconds else float("nan")


def pixel_scores(cases, edited_dir: str | None) -> tuple[float, float]:
    """(PSNR inside the true mask against the clean reference, mean |edit - source| outside it)
    pooled over every frame; `edited_dir` None scores the untouched input."""
    inside_se = inside_n = outside_ad = outside_n = 0.0
    for case in cases:
        edit_path = case.source if edited_dir is None else case.edited_path(edited_dir)
        for edit, clean, source, mask in zip(
            iter_frames(edit_path), iter_frames(case.reference), iter_frames(case.source), iter_masks(case.mask)
        ):
            h, w = edit.rgb.shape[:2]
            inside = mask[:h, :w] >= 128
            e = edit.rgb.astype(np.float64)
            d = e[inside] - clean.rgb[:h, :w][inside]
            inside_se += float((d**2).sum())
            inside_n += d.size
            o = np.abs(e[~inside] - source.rgb[:h, :w][~inside])
            outside_ad += float(o.sum())
            outside_n += o.size
    psnr = 10 * np.log10(255**2 / (inside_se / inside_n)) if inside_n and inside_se else float("inf")
    return round(float(psnr), 2), round(outside_ad / outside_n, 3) if outside_n else float("nan")


def _portable(arg: str) -> str:
    """A command-line argument as the results page shows it: absolute paths by their last part."""
    return os.path.basename(arg.rstrip("/")) if os.path.isabs(arg) else arg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", help="a cases JSONL or a folder holding cases.jsonl")
    parser.add_argument("--output", required=True)
    parser.add_argument("--results", help="also write the Markdown results page here (docs/results/removal.md)")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--methods", default="", help="comma-separated subset of: " + ", ".join(m for m, _ in METHODS))
    parser.add_argument("--games", default="", help="comma-separated games (default: all)")
    parser.add_argument("--max-cases-per-game", type=int, default=None)
    args = parser.parse_args()
    listings = game_listings(args.cases, args.output, set(filter(None, args.games.split(","))), args.max_cases_per_game)
    chosen = [(m, o) for m, o in METHODS if not args.methods or m in args.methods.split(",")]
    result: dict = {"games": {}}
    for game, listing in listings.items():
        cases = load_cases(listing)
        iou, detect_fps = mask_scores(cases, args.checkpoint)
        input_psnr, _ = pixel_scores(cases, None)
        entry = {
            "cases": len(cases),
            "mask_iou": round(iou, 4),
            "detect_fps": round(detect_fps, 2),
            "input_psnr": input_psnr,
            "methods": {},
        }
        for method, options in chosen:
            if args.checkpoint and options.get("mask") == "segmenter":
                options = {**options, "checkpoint": os.path.abspath(args.checkpoint)}
            edited = os.path.join(args.output, "removed", game, method)
            summary = run_remove(method, listing, edited, options)
            scores = run_evaluate(listing, edited, os.path.join(args.output, "eval", game, method))["scores"]
            judged = next(iter(scores.values()))
            psnr, outside = pixel_scores(cases, edited)
            entry["methods"][method] = {
                "psnr_gain": round(psnr - input_psnr, 2),
                "outside_mad": outside,
                "AAR": judged["AAR"],
                "BG": judged["BG"],
                "removal_fps": summary["frames_per_worker_s"],
            }
            print(game, method, json.dumps(entry["methods"][method]), flush=True)
        result["games"][game] = entry
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "quality.json"), "w") as f:
        json.dump(result, f, indent=2)
    rows = [
        [
            game,
            e["cases"],
            method if method != "telea-gt" else "telea-gt (oracle mask)",
            "-" if method == "telea-gt" else e["mask_iou"],
            m["psnr_gain"],
            m["outside_mad"],
            m["AAR"],
            m["BG"],
            m["removal_fps"],
            e["detect_fps"],
        ]
        for game, e in result["games"].items()
        for method, m in e["methods"].items()
    ]
    header = [
        "game",
        "cases",
        "method",
        "mask IoU",
        "PSNR in mask over input (dB)",
        "mean |edit-source| outside",
        "AAR",
        "BG",
        "removal fps (1 worker)",
        "detection fps",
    ]
    table = markdown_table(header, rows)
    print(table)
    if args.results:
        goals = (
            "Goals (issue): mask IoU >= 0.7 on every held-out game; PSNR inside the true mask >= +10 dB over "
            "the input; mean change outside the mask <= 1.5 grey levels; mask-free AAR >= telea-gt's; "
            "removal >= 10 fps at 720p on 2 cores. "
            + training_sentence(read_training(args.checkpoint or DEFAULT_CHECKPOINT))
        )
        write_results_page(
            args.results,
            "Mask-free removal on real captured pairs, per game",
            "python " + " ".join(["benchmarks/removal_quality.py", *map(_portable, sys.argv[1:])]),
            goals + "\n\n" + table,
        )


if __name__ == "__main__":
    main()
