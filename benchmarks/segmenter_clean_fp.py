"""False positives of the segmenter on HUD-free footage: the clean clips of captured cases.

A captured case's `clean.mp4` is the same demo rendered with the HUD off, so every pixel the
segmenter calls UI there is a false positive, and what remains in view is world: above all the
first-person weapon, which a HUD-free render still draws. For each case, on `--frames` evenly
spaced frames, counts the pixels at the video's own size of the refined mask (what `g2w detect`
writes) and of the removal mask (`--mask segmenter`, before its dilation), over the whole
frame and in the bottom-centre box where Doom-like games draw the weapon (x 0.3-0.7, y >= 0.5;
a place to look, not a rule the segmenter uses). Prints one row per case and the totals, in
per mille of the frames' pixels, the total removal share LAST.

Usage: python benchmarks/segmenter_clean_fp.py CASES... [--checkpoint DIR] [--frames 12] [--json OUT.json] [--results PAGE.md]
"""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from g2w.io.results_page import markdown_table, write_results_page
from g2w.segment.mask_rules import REMOVAL_RULES
from g2w.segment.predict import Segmenter, full_mask
from g2w.video import probe


def weapon_box(height: int, width: int) -> tuple[slice, slice]:
    return slice(height // 2, height), slice(int(0.3 * width), int(0.7 * width))


def score_clean(segmenter: Segmenter, clean: str, frames: int) -> dict:
    """Pixel counts of the refined and removal masks on `frames` evenly spaced frames of `clean`."""
    info = probe(clean)
    preds = list(segmenter.frames(clean))
    wanted = set(np.linspace(0, len(preds) - 1, frames).round().astype(int).tolist()) if preds else set()
    box = weapon_box(info.height, info.width)
    counts = {"frames": 0, "pixels": 0, "refined": 0, "refined_box": 0, "removal": 0, "removal_box": 0}
    for pred in preds:
        if pred.index not in wanted:
            continue
        refined = full_mask(pred, info.width, info.height) > 0
        removal = full_mask(pred, info.width, info.height, rules=REMOVAL_RULES) > 0
        counts["frames"] += 1
        counts["pixels"] += info.width * info.height
        counts["refined"] += int(refined.sum())
        counts["refined_box"] += int(refined[box].sum())
        counts["removal"] += int(removal.sum())
        counts["removal_box"] += int(removal[box].sum())
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="+", help="captured case folders (with clean.mp4)")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--frames", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default=None)
    parser.add_argument("--results", help="also write this Markdown results page")
    args = parser.parse_args()
    segmenter = Segmenter(args.checkpoint, threads=args.threads, full_res=True)
    rows, errors = {}, {}
    for case in args.cases:
        clean = os.path.join(case, "clean.mp4")
        if not os.path.isfile(clean):
            errors[case] = "no clean.mp4"
            continue
        rows[os.path.basename(os.path.normpath(case))] = score_clean(segmenter, clean, args.frames)
    total = {
        k: sum(r[k] for r in rows.values())
        for k in ("frames", "pixels", "refined", "refined_box", "removal", "removal_box")
    }
    print(f"{len(rows)} clean clips, {args.frames} frames each, checkpoint {segmenter.checkpoint}")
    print(f"{'case':28s} {'refined':>8s} {'in box':>8s} {'removal':>8s} {'in box':>8s}  (per mille of frame pixels)")
    for name, r in [*rows.items(), ("total", total)]:
        if not r["pixels"]:
            continue
        share = {k: 1000 * r[k] / r["pixels"] for k in ("refined", "refined_box", "removal", "removal_box")}
        print(
            f"{name:28s} {share['refined']:8.2f} {share['refined_box']:8.2f} {share['removal']:8.2f} "
            f"{share['removal_box']:8.2f}"
        )
    for case, reason in errors.items():
        print(f"skipped {case}: {reason}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"frames": args.frames, "cases": rows, "total": total, "errors": errors}, f, indent=1)
    if total["pixels"]:
        print(f"removal mask on clean frames: {1000 * total['removal'] / total['pixels']:.2f} per mille")
    if args.results:
        write_page(args, rows, total, str(segmenter.checkpoint))


def write_page(args: argparse.Namespace, rows: dict, total: dict, checkpoint: str) -> None:
    """Per case and in total, the masks' share of clean frames, in per mille."""

    def shares(r: dict) -> list[float]:
        return [round(1000 * r[k] / r["pixels"], 2) for k in ("refined", "refined_box", "removal", "removal_box")]

    table = [[name, r["frames"], *shares(r)] for name, r in [*rows.items(), ("total", total)] if r["pixels"]]
    body = (
        f"{len(rows)} HUD-free clips, {args.frames} evenly spaced frames each; checkpoint `{os.path.basename(checkpoint)}`."
        " Every pixel called UI on a clean frame is a false positive; the box is the bottom centre"
        " (x 0.3-0.7, y >= 0.5), where first-person games draw the weapon.\n\n"
        + markdown_table(
            ["case", "frames", "refined mask (per mille)", "in the box", "removal mask (per mille)", "in the box"],
            table,
        )
    )
    command = f"python benchmarks/segmenter_clean_fp.py CASES... --frames {args.frames} --results {args.results}"
    notes = ["CASES: the `cases/*` folders of a `g2w capture` corpus (each has the clean twin as clean.mp4)."]
    write_results_page(args.results, "Segmenter false positives on HUD-free footage", command, body, notes)


if __name__ == "__main__":
    main()
