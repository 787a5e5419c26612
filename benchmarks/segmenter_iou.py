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

from g2w.segment.full_size import new_scores, score_pair
from g2w.segment.predict import Segmenter
from g2w.segment.task import sample_dirs


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
    scores = new_scores()
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
