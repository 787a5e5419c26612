"""A fast hard-cut detector over every decoded frame, from tiny luma thumbnails.

Each frame is reduced to a 64x36 luma thumbnail taken straight from the decoder's Y plane (a
strided view and one small resize, so every frame can be looked at). Thumbnails are normalized
to zero mean and unit contrast, so fades to and from black (a gain change) do not read as cuts;
a step where either frame is nearly flat (the black end of a fade) is never a cut, because
there the normalized picture is mostly quantization. Consecutive thumbnails are compared after
undoing their global shift, so pans and camera shake do not read as cuts either. A cut is a jump that is large in absolute terms, or large against the recent
frame-to-frame motion: fast action moves every frame a little, a cut moves one frame a lot,
including cuts between two looks of the same place (a replay restarting) that colour histograms
would miss.

Windows that straddle a detected cut are rejected with reason `scene_cut` rather than
re-aligned: the paper's windows are a fixed 5 s grid, and keeping that grid keeps window ids
and temporal adjacency (which dedup relies on) simple and stable.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import av
import cv2
import numpy as np

from g2w.video.decode import luma_plane
THUMB = (64, 36)
_MAX_SHIFT = (16, 9)  # thumbnail pixels (a quarter of the frame): larger "shifts" are not motion
_MIN_SHIFT_RESPONSE = 0.05
FLAT_CONTRAST = 4.0  # luma std (0-255) below which a thumbnail is too flat to judge



@dataclass(frozen=True)
class CutThresholds:
    """Calibrated as the README's "Calibration" section records."""

    absolute: float = 0.45  # thumbnail difference that is a cut on its own
    floor: float = 0.2  # below this difference nothing is a cut (fades stay below it)
    ratio: float = 4.0  # between floor and absolute: a cut when this many times the recent median
    history: int = 8  # frames of recent motion the ratio compares against
    min_history: int = 3  # no relative cuts until this many frames of motion are known


@dataclass(frozen=True)
class Thumb:
    pixels: np.ndarray  # (36, 64) float32, zero mean, unit std
    contrast: float  # luma std before normalizing


def luma_thumb(frame: av.VideoFrame) -> Thumb:
    """The frame's normalized 64x36 luma thumbnail, read from the Y plane without conversion."""
    found = luma_plane(frame)  # range does not matter here: thumbnails are normalized
    if found is not None:
        y = found[0]
        step_y, step_x = max(1, y.shape[0] // (2 * THUMB[1])), max(1, y.shape[1] // (2 * THUMB[0]))
        y = y[::step_y, ::step_x]
    else:  # 10-bit, RGB or other layouts: let swscale produce 8-bit luma
        y = frame.to_ndarray(format="gray", width=2 * THUMB[0], height=2 * THUMB[1])
    small = cv2.resize(y, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    mean, std = cv2.meanStdDev(small)
    contrast = float(std[0, 0])
    return Thumb((small - float(mean[0, 0])) / max(contrast, 1e-3), contrast)


def motion_compensated_difference(prev: np.ndarray, cur: np.ndarray) -> tuple[float, tuple | None]:
    """(mean |cur - prev| after undoing the global shift between them, that shift as a fraction
    of the thumbnail width or None when phase correlation finds no reliable one). Undoing the
    shift keeps a pan or a camera shake from looking like new content."""
    raw = cv2.mean(cv2.absdiff(cur, prev))[0]
    (dx, dy), response = cv2.phaseCorrelate(prev, cur)
    if response < _MIN_SHIFT_RESPONSE or abs(dx) > _MAX_SHIFT[0] or abs(dy) > _MAX_SHIFT[1]:
        return raw, None
    moved = cv2.warpAffine(prev, np.float32([[1, 0, dx], [0, 1, dy]]), (prev.shape[1], prev.shape[0]),
                           borderMode=cv2.BORDER_REPLICATE)
    mx, my = max(1, int(np.ceil(abs(dx)))), max(1, int(np.ceil(abs(dy))))
    inner = cv2.absdiff(cur, moved)[my:-my, mx:-mx]  # the strip the shift uncovered is unknown
    return min(raw, cv2.mean(inner)[0]), (dx / THUMB[0], dy / THUMB[0])


class CutDetector:
    """Feed every frame's thumbnail in order; `step` says whether a cut lands on it."""

    def __init__(self, thresholds: CutThresholds = CutThresholds()):
        self.t = thresholds
        self._prev: Thumb | None = None
        self._recent: deque[float] = deque(maxlen=thresholds.history)

    def step(self, thumb: Thumb) -> tuple[bool, float, tuple | None]:
        """(is_cut, score, shift): score >= 1 exactly when the frame is a cut; shift is the global
        motion from the previous frame (fractions of the width), None when unknown."""
        prev, self._prev = self._prev, thumb
        if prev is None:
            return False, 0.0, None
        diff, shift = motion_compensated_difference(prev.pixels, thumb.pixels)
        if min(prev.contrast, thumb.contrast) < FLAT_CONTRAST:
            return False, 0.0, shift
        score = diff / self.t.absolute
        if len(self._recent) >= self.t.min_history:
            baseline = max(float(np.median(self._recent)), 0.01)
            score = max(score, min(diff / self.t.floor, (diff / baseline) / self.t.ratio))
        if score < 1.0:  # a cut must not raise the motion baseline that would hide the next one
            self._recent.append(diff)
        return score >= 1.0, score, shift
