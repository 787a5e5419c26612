"""What the segmenter sees: a short frame stack plus temporal statistics of a longer window.

Frames are first scaled so their long side is the model's `input_long_side`. A clip is cut into
consecutive windows of `span` frames; each window gives a per-pixel temporal median (RGB) and a
spread (mean absolute deviation of luma from the median): static UI has a spread near zero and
a median equal to itself, moving world has neither. Every frame of a window shares its
statistics, so they cost one median per `span` frames. Training and detection both build inputs
here, so the model sees the same thing in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import cache

import numpy as np

from g2w.models.hud_segmenter import HudSegmenterConfig

_LUMA = np.array([0.299, 0.587, 0.114], np.float32)


def model_size(width: int, height: int, long_side: int) -> tuple[int, int]:
    """(w, h) the network runs at: the long side scaled to `long_side` (never up), at least 8 px."""
    scale = min(1.0, long_side / max(width, height))
    return max(8, round(width * scale)), max(8, round(height * scale))


@cache
def _sorting_network(n: int) -> tuple[tuple[int, int], ...]:
    """Batcher's odd-even merge sort for n inputs, as (i, j) compare-exchange pairs (i < j)."""
    pairs, p = [], 1
    while p < n:
        k = p
        while k >= 1:
            for j in range(k % p, n - k, 2 * k):
                for i in range(min(k, n - j - k)):
                    if (i + j) // (2 * p) == (i + j + k) // (2 * p):
                        pairs.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return tuple(pairs)


def temporal_median(frames: np.ndarray) -> np.ndarray:
    """Per-pixel median over axis 0 of uint8 frames (N, ...), exactly `np.median(...).astype(uint8)`
    (the mean of the two middle values, rounded down, for even N).

    A sorting network of elementwise minima and maxima over whole frames: for 32 frames at
    256x144 it takes about 3 ms where `np.median` (a partition per pixel) takes about 170 ms.
    """
    n = len(frames)
    if n == 0:
        raise ValueError("no frames")
    rows = [np.array(f, dtype=np.uint8) for f in frames]
    for i, j in _sorting_network(n):
        low = np.minimum(rows[i], rows[j])
        np.maximum(rows[i], rows[j], out=rows[j])
        rows[i] = low
    if n % 2:
        return rows[n // 2]
    return ((rows[n // 2 - 1].astype(np.uint16) + rows[n // 2]) // 2).astype(np.uint8)


def window_stats(frames: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(median (H, W, 3) uint8, spread (H, W) uint8) of frames (N, H, W, 3) uint8."""
    median = temporal_median(frames)
    luma = frames.astype(np.float32) @ _LUMA
    spread = np.abs(luma - median.astype(np.float32) @ _LUMA).mean(axis=0)
    return median, np.clip(spread * 4, 0, 255).astype(np.uint8)  # x4: small spreads matter most


def stack_indices(t: int, n: int, config: HudSegmenterConfig) -> list[int]:
    """Frame indices of the stack centred on frame t, clamped to 0..n-1."""
    half = config.stack // 2
    return [min(n - 1, max(0, t + (k - half) * config.stack_step)) for k in range(config.stack)]


def assemble(
    stack: list[np.ndarray], median: np.ndarray, spread: np.ndarray, text: np.ndarray | None = None
) -> np.ndarray:
    """One network input (C, H, W) float32 in 0..1 from uint8 frames and statistics; `text`, a
    text-proposal map (H, W) float32 in 0..1 (`g2w.segment.text_proposals`), goes first when given."""
    planes = np.concatenate([*stack, median, spread[..., None]], axis=-1)
    x = np.ascontiguousarray(planes.transpose(2, 0, 1), dtype=np.float32) * np.float32(1 / 255)
    if text is None:
        return x
    return np.concatenate([np.asarray(text, np.float32)[None], x])


def clip_inputs(
    frames: np.ndarray, config: HudSegmenterConfig, texts: np.ndarray | None = None
) -> Iterator[np.ndarray]:
    """Inputs for every frame of a clip held in memory (N, H, W, 3), in order; `texts`: the
    frames' text-proposal maps (N, H, W) float32, for a config with `text_channel`."""
    n = len(frames)
    for start in range(0, n, config.span):
        median, spread = window_stats(frames[start : start + config.span])
        for t in range(start, min(n, start + config.span)):
            text = texts[t] if texts is not None else None
            yield assemble([frames[i] for i in stack_indices(t, n, config)], median, spread, text)


def stream_inputs(
    frames: Iterable[np.ndarray], config: HudSegmenterConfig, text: Callable[[int], np.ndarray] | None = None
) -> Iterator[np.ndarray]:
    """Like `clip_inputs`, for frames arriving one at a time: holds one window plus the stack's
    reach on either side, so memory stays flat however long the video is. `text(t)`: frame t's
    text-proposal map, asked for once frame t has been read from `frames`."""
    reach = config.stack_step * (config.stack // 2)
    it = iter(frames)
    buffer: list[np.ndarray] = []  # frames base .. base + len(buffer) - 1
    base, start, finished = 0, 0, False
    while True:
        while not finished and base + len(buffer) < start + config.span + reach:
            try:
                buffer.append(next(it))
            except StopIteration:
                finished = True
        known = base + len(buffer)
        if start >= known:
            return
        end = min(start + config.span, known)
        median, spread = window_stats(np.stack(buffer[start - base : end - base]))
        for t in range(start, end):
            # until the stream ends, the reach ahead is buffered, so clamping at `known` is exact
            # `reach` frames before `start` stay buffered, so every index is >= base
            plane = text(t) if text is not None else None
            yield assemble([buffer[i - base] for i in stack_indices(t, known, config)], median, spread, plane)
        start = end
        drop = max(0, start - reach - base)
        del buffer[:drop]
        base += drop
