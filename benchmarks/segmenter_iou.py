"""Full-size mask IoU of the segmenter with its full-resolution refiner, next to the plain upsampled mask.

For each pair (a folder with hud.mp4 and mask.mkv: synthesized samples, captured cases, or
outputs holding them), the video runs once through `Segmenter.frames` (the refiner included when
the checkpoint has one); on `--frames` evenly spaced frames (the validation's 6 by default) the
refined mask (`full_mask`) and the plain one (the same prediction without its refinement:
probability upsampled bilinearly, thresholded at 0.5) are scored against `mask.mkv` at the
video's own size. Pixel counts pool over frames and pairs, per source (`synthesized`,
`real:<game>`) and over all. Prints a table, then the refined / plain IoU ratio LAST.

Usage: python benchmarks/segmenter_iou.py PAIRS... [--checkpoint DIR] [--frames 6] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict

import numpy as np

from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import Segmenter, full_mask
from g2w.segment.task import sample_dirs, source_group
from g2w.video import iter_masks, probe


def score_pair(segmenter: Segmenter, pair: str, frames: int, scores: dict) -> None:
    src = os.path.join(pair, "hud.mp4")
    info = probe(src)
    preds = {}
    n = 0
    for n, pred in enumerate(segmenter.frames(src), 1):  # noqa: B007  (n counts the frames, read after the loop)
        preds[pred.index] = pred
    wanted = set(np.linspace(0, n - 1, frames).round().astype(int).tolist()) if n else set()
    preds = {k: v for k, v in preds.items() if k in wanted}
    group = source_group(pair)
    for k, truth in enumerate(iter_masks(os.path.join(pair, "mask.mkv"))):
        if k not in preds:
            continue
        truth = truth >= 128
        refined = full_mask(preds[k], info.width, info.height) > 0
        preds[k].full_res = None
        plain = full_mask(preds[k], info.width, info.height) > 0
        for name in (group, "all"):
            scores[name]["refined"].add_pixels(refined, truth)
            scores[name]["plain"].add_pixels(plain, truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--frames", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    segmenter = Segmenter(args.checkpoint, threads=args.threads, full_res=True)
    if segmenter.refiner is None:
        parser.error(f"{segmenter.checkpoint} has no full-resolution refiner (hud_refiner.safetensors)")
    scores = defaultdict(lambda: {"plain": SegmentationScore(), "refined": SegmentationScore()})
    pairs = sample_dirs(args.pairs)
    for pair in pairs:
        score_pair(segmenter, pair, args.frames, scores)
    rows = {}
    print(f"{len(pairs)} pairs, {args.frames} frames each, checkpoint {segmenter.checkpoint}")
    print(f"{'source':16s} {'plain IoU':>10s} {'refined IoU':>12s} {'plain F1':>9s} {'refined F1':>11s}")
    for name in sorted(scores, key=lambda k: (k == "all", k)):
        r = {kind: s.result() for kind, s in scores[name].items()}
        rows[name] = {
            kind: {
                "mask_iou": v["mask_iou"],
                "pixel_f1": v["pixel_f1"],
                "tp": scores[name][kind].tp,
                "fp": scores[name][kind].fp,
                "fn": scores[name][kind].fn,
            }
            for kind, v in r.items()
        }
        print(
            f"{name:16s} {r['plain']['mask_iou']:10.3f} {r['refined']['mask_iou']:12.3f} "
            f"{r['plain']['pixel_f1']:9.3f} {r['refined']['pixel_f1']:11.3f}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "frames": args.frames, "scores": rows}, f, indent=1)
    a = rows["all"]
    print(f"refined / plain IoU: {a['refined']['mask_iou'] / a['plain']['mask_iou']:.3f}")


if __name__ == "__main__":
    main()
