"""The segmenter scored and timed at a video's own size, as detection uses it.

Shared by the benchmarks that compare checkpoints (`benchmarks/segmenter_iou.py`,
`benchmarks/segmenter_speed.py`, `benchmarks/segmenter_loo.py`), so each scores and times a
checkpoint the same way.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict

import numpy as np

from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import Segmenter, full_mask
from g2w.segment.task import source_group
from g2w.video import iter_masks, probe


def new_scores() -> defaultdict:
    """Per source group: a pooled score for the refined and for the plain full-size mask."""
    return defaultdict(lambda: {"plain": SegmentationScore(), "refined": SegmentationScore()})


def score_pair(segmenter: Segmenter, pair: str, frames: int, scores: dict) -> None:
    """Add one pair's `frames` evenly spaced frames to `scores` (under its source group and "all").

    The video runs once through `Segmenter.frames` (the refiner included when the checkpoint has
    one); the refined mask (`full_mask`) and the plain one (the same prediction without its
    refinement: probability upsampled bilinearly, thresholded at 0.5) are scored against
    `mask.mkv` at the video's own size."""
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


def segmenter_fps(segmenter: Segmenter, clip: str, width: int, height: int) -> float:
    """Frames per second of `Segmenter.frames` over `clip`, the full-size mask of each included."""
    start = time.perf_counter()
    frames = 0
    for pred in segmenter.frames(clip):
        full_mask(pred, width, height)
        frames += 1
    return frames / (time.perf_counter() - start)
