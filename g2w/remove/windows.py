"""Long videos through a fixed-length video model: overlapping windows, cross-faded, and the
result put back on the source's own frame times.

GameCleaner edits a fixed number of frames at the model's rate. Windows laid end to end would
each start from their own noise, so the edit could change at every boundary. Here neighbouring
windows share at least `overlap` frames and each output frame is the weighted mean of the windows
that cover it, with weights that ramp linearly across each shared span: every frame's weights sum
to one, and a window's influence fades in and out instead of switching. The windows are spread
evenly so the last one ends exactly at the end of the video; a video shorter than one window is
one window, cut to length.

The model works at its own rate; the output takes the source's frame count and rate, each source
frame showing the model frame nearest its time (so a 30 fps source holds each 16 fps model frame
for about two frames, and a 60 fps one for about four).
"""

from __future__ import annotations

import math

import numpy as np


def window_starts(total: int, frames: int, overlap: int) -> list[int]:
    """First model frame of each window of `frames` frames covering `total` frames, neighbours
    sharing at least `overlap` frames."""
    if frames < 1 or not 0 <= overlap < frames:
        raise ValueError(f"need frames >= 1 and 0 <= overlap < frames, got {frames}, {overlap}")
    if total <= frames:
        return [0]
    count = math.ceil((total - frames) / (frames - overlap)) + 1
    return [round(k * (total - frames) / (count - 1)) for k in range(count)]


def blend_weights(starts: list[int], frames: int, total: int) -> np.ndarray:
    """(windows, frames) float32 weights: each covered output frame's weights sum to 1, ramping
    linearly across every span two windows share."""
    raw = np.zeros((len(starts), frames), np.float64)
    for k, start in enumerate(starts):
        left = starts[k - 1] + frames - start if k > 0 else 0  # frames shared with the previous window
        right = start + frames - starts[k + 1] if k + 1 < len(starts) else 0
        i = np.arange(frames, dtype=np.float64)
        ramp_in = (i + 1) / (left + 1) if left > 0 else np.ones(frames)
        ramp_out = (frames - i) / (right + 1) if right > 0 else np.ones(frames)
        raw[k] = np.minimum(1.0, np.minimum(ramp_in, ramp_out))
    cover = np.zeros(max(total, max(starts) + frames))
    for k, start in enumerate(starts):
        cover[start : start + frames] += raw[k]
    out = np.stack([raw[k] / cover[start : start + frames] for k, start in enumerate(starts)])
    return out.astype(np.float32)


def source_frame_map(source_frames: int, source_fps: float, model_fps: float, model_frames: int) -> np.ndarray:
    """For each source frame, the model frame nearest its time."""
    times = np.arange(source_frames) / source_fps
    return np.minimum(np.rint(times * model_fps).astype(np.int64), model_frames - 1)


class Blender:
    """Accumulates windows in order and hands out each model frame once no later window covers it."""

    def __init__(self, starts: list[int], frames: int, total: int):
        self.starts, self.frames, self.total = starts, frames, total
        self.weights = blend_weights(starts, frames, total)
        self._pending: dict[int, np.ndarray] = {}

    def add(self, k: int, window: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """Add window `k` ((frames, h, w, 3) uint8); returns the (index, uint8 frame) now final."""
        start = self.starts[k]
        for i in range(min(self.frames, self.total - start)):
            term = window[i].astype(np.float32) * self.weights[k, i]
            f = start + i
            self._pending[f] = self._pending[f] + term if f in self._pending else term
        until = self.starts[k + 1] if k + 1 < len(self.starts) else self.total
        done = sorted(f for f in self._pending if f < until)
        return [(f, np.clip(np.rint(self._pending.pop(f)), 0, 255).astype(np.uint8)) for f in done]
