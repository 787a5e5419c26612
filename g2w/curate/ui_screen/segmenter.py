"""The learned UI screen ("segmenter"): per-window UI coverage from the shipped HUD segmenter.

It follows `UiScreen` like the static-edge heuristic, but looks at colour: each sampled frame of a
window is kept at the segmenter's resolution (a 5 s window at 8 samples/s and 256 px is ~4.4 MB),
and when the window ends the network sees each of `FRAMES_PER_WINDOW` evenly spaced samples with
its neighbours as the short stack and the whole window's median and spread as the temporal
statistics. The samples are further apart in time than the frames the segmenter was trained on
(1/8 s instead of 1/15 s between stack members, 5 s instead of about 1 s of statistics), which
only makes moving scenery easier to tell from UI that stays put.

Coverage is the share of the frame (letterbox/pillarbox bars excluded) whose UI probability is
at least `PIXEL_THRESHOLD`, averaged over the evaluated samples; the curation threshold
`max_ui_coverage` then applies to it as it does to the heuristic's.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import torch

from g2w.segment.inputs import assemble, model_size, window_stats
from g2w.segment.predict import Segmenter

FRAMES_PER_WINDOW = 8  # evaluated samples per window: each costs one network run
PIXEL_THRESHOLD = 0.5  # the segmenter's trained decision boundary (as `g2w detect` uses)
MIN_SAMPLES = 4


@lru_cache(maxsize=2)
def _segmenter(checkpoint: str | None) -> Segmenter:
    """One loaded model per process (a Ray worker analyses many sources). Ray starts a one-CPU
    task with OMP_NUM_THREADS=1, so there the network runs on one thread, as the step's core allows."""
    return Segmenter(checkpoint)


class SegmenterScreen:
    """Fed sampled frames window by window (luma for the bars' scale, colour for the network);
    `coverages()` answers per window."""

    needs_rgb = True  # the analysis step passes each sampled frame in colour at `model_size`

    def __init__(self, checkpoint: str | None = None):
        self.segmenter = _segmenter(checkpoint)
        self.config = self.segmenter.config
        self._samples: list[np.ndarray] = []
        self._scale = 1.0  # analysis-size pixels per model pixel (the bars arrive in the former)
        self._coverages: list[float] = []

    def model_size(self, width: int, height: int) -> tuple[int, int]:
        return model_size(width, height, self.config.input_long_side)

    def start_window(self) -> None:
        self._samples = []

    def add(self, gray: np.ndarray, rgb: np.ndarray | None = None) -> None:
        """`rgb`: the sampled frame (H, W, 3) uint8, at `model_size` or scaled to it here."""
        if rgb is None:
            raise ValueError("the segmenter screen needs colour frames")
        size = self.model_size(rgb.shape[1], rgb.shape[0])
        if rgb.shape[1::-1] != size:
            rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
        self._scale = gray.shape[0] / size[1]
        self._samples.append(rgb)

    @torch.inference_mode()
    def window_probability(self) -> np.ndarray | None:
        """(n, h, w) UI probability of the evaluated samples of the current window (None: too few)."""
        n = len(self._samples)
        if n < MIN_SAMPLES:
            return None
        frames = np.stack(self._samples)
        median, spread = window_stats(frames)
        picks = np.linspace(0, n - 1, min(n, FRAMES_PER_WINDOW)).round().astype(int)
        half = self.config.stack // 2
        inputs = [
            assemble([frames[min(n - 1, max(0, t + k - half))] for k in range(self.config.stack)], median, spread)
            for t in picks
        ]
        return np.stack([p.ui for p in self.segmenter.predict(inputs)])

    def end_window(self, bars: tuple[int, int, int, int] = (0, 0, 0, 0)) -> None:
        prob = self.window_probability()
        self._coverages.append(0.0 if prob is None else coverage(prob >= PIXEL_THRESHOLD, bars, self._scale))
        self._samples = []

    def coverages(self) -> list[float]:
        return list(self._coverages)


def coverage(ui: np.ndarray, bars: tuple[int, int, int, int], scale: float = 1.0) -> float:
    """Mean share of UI pixels per frame of `ui` (n, h, w) bool inside the picture: the bars
    (top, bottom, left, right), in pixels of a frame `scale` times larger, are left out."""
    top, bottom, left, right = (int(round(b / scale)) for b in bars)
    h, w = ui.shape[1:]
    inside = ui[:, top : h - bottom, left : w - right]
    return float(inside.mean()) if inside.size else 0.0
