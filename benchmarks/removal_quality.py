"""Held-out quality of the segmenter and of mask-free removal, on synthesized pairs.

On every case of a synthesis output made from clips and an asset library the segmenter never
trained on:
- mask IoU and pixel F1 of the segmenter at the video's own size against `mask.mkv`: its
  thresholded, upsampled mask, the full-resolution refiner's, and the removal mask (before
  dilation) that `--mask segmenter` uses;
- PSNR inside the ground-truth mask against the clean reference, for `identity`, `telea-gt`
  (oracle mask), `telea` and `propagate` with the segmenter's mask (mask-free), and `propagate`
  with the ground-truth mask (`propagate-gt`: the fill's own quality, apart from the mask's);
- the reference judge's AAR and BG for the same methods (`g2w evaluate --judge reference`).

Usage: python benchmarks/removal_quality.py SYNTH_OUT --output DIR [--checkpoint CKPT] [--methods A,B]
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import replace

import numpy as np

from g2w.cases.case import load_cases
from g2w.jobs.evaluate import run_evaluate
from g2w.jobs.remove import run_remove
from g2w.segment.mask_rules import REMOVAL_RULES
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import Segmenter, full_mask
from g2w.video import iter_frames, iter_masks

METHODS = (("identity", {}), ("telea-gt", {}), ("telea", {"mask": "segmenter"}), ("propagate", {"mask": "gt"}),
           ("propagate", {"mask": "segmenter"}))


def segmenter_scores(cases, checkpoint: str | None) -> dict:
    """IoU and F1 at the video's size of the plain upsampled mask (`mask_iou`), the full-resolution
    refiner's (`refined_iou`, what `g2w detect` writes) and the removal mask before dilation
    (`removal_iou`: the refined mask with `REMOVAL_RULES`)."""
    segmenter = Segmenter(checkpoint, threads=2, full_res=True)
    scores = {k: SegmentationScore() for k in ("plain", "refined", "removal")}
    for case in cases:
        w, h = case.width, case.height
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask)):
            t = truth >= 128
            scores["plain"].add_pixels(full_mask(replace(pred, full_res=None), w, h) > 0, t)
            scores["refined"].add_pixels(full_mask(pred, w, h) > 0, t)
            scores["removal"].add_pixels(full_mask(pred, w, h, rules=REMOVAL_RULES) > 0, t)
    plain, refined, removal = (scores[k].result() for k in ("plain", "refined", "removal"))
    return {"mask_iou": plain["mask_iou"], "pixel_f1": plain["pixel_f1"], "refined_iou": refined["mask_iou"],
            "refined_f1": refined["pixel_f1"], "removal_iou": removal["mask_iou"], "removal_f1": removal["pixel_f1"]}


def psnr_inside(cases, edited_dir: str) -> float:
    """PSNR over every ground-truth mask pixel of every frame (one pooled MSE)."""
    total, count = 0.0, 0
    for case in cases:
        path = case.edited_path(edited_dir)
        for edit, clean, mask in zip(iter_frames(path), iter_frames(case.reference), iter_masks(case.mask)):
            inside = mask[:edit.rgb.shape[0], :edit.rgb.shape[1]] >= 128
            h, w = edit.rgb.shape[:2]
            diff = edit.rgb[inside].astype(np.float64) - clean.rgb[:h, :w][inside]
            total += float((diff ** 2).sum())
            count += diff.size
    return round(10 * np.log10(255 ** 2 / (total / count)), 2) if count and total else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("synth_out")
    parser.add_argument("--output", required=True)
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--methods", default="", help="comma-separated subset of: identity, telea-gt, "
                        "telea-segmenter, propagate-gt, propagate-segmenter (default: all)")
    args = parser.parse_args()
    cases = load_cases(args.synth_out)
    result = {"cases": len(cases), "segmenter": segmenter_scores(cases, args.checkpoint), "methods": {}}
    print(json.dumps(result["segmenter"]), flush=True)
    for method, options in METHODS:
        name = f"{method}-{options['mask']}" if "mask" in options else method
        if args.methods and name not in args.methods.split(","):
            continue
        if args.checkpoint and options.get("mask") == "segmenter":
            options = {**options, "checkpoint": os.path.abspath(args.checkpoint)}
        edited = os.path.join(args.output, "removed", name)
        run_remove(method, args.synth_out, edited, options)
        scores = run_evaluate(args.synth_out, edited, os.path.join(args.output, "eval", name))["scores"]["synthetic"]
        result["methods"][name] = {"psnr_in_mask": psnr_inside(cases, edited), "AAR": scores["AAR"],
                                   "BG": scores["BG"]}
        print(name, json.dumps(result["methods"][name]), flush=True)
    with open(os.path.join(args.output, "quality.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"{'method':22s} {'PSNR in mask':>12s} {'AAR':>6s} {'BG':>6s}")
    for name, m in result["methods"].items():
        print(f"{name:22s} {m['psnr_in_mask']:12.2f} {m['AAR']:6.1f} {m['BG']:6.1f}")


if __name__ == "__main__":
    main()
