"""The HUD mask that keeps tracking off the interface, from the learned detector.

A HUD is screen-anchored: its pixels stay where they are while the world moves, which is exactly
what a tracker must not follow. The shipped segmenter predicts the UI of the first
`frames` frames of a segment (one statistics span or more: its temporal cues need them), and
the union of its per-frame masks is the mask for the whole segment; a HUD element that appears
later covers few pixels and is outvoted by RANSAC.
"""

from __future__ import annotations

import itertools

import numpy as np


def detector_mask(segmenter, video: str, width: int, height: int, frames: int = 48) -> np.ndarray:
    """(height, width) uint8 255 = UI: the union of the detector's masks over the first frames."""
    from g2w.segment.predict import full_mask

    union = np.zeros((height, width), np.uint8)
    for pred in itertools.islice(segmenter.frames(video), frames):
        np.maximum(union, full_mask(pred, width, height), out=union)
    return union
