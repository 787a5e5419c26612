"""Complete, non-overlapping windows over a source, and the stable ids derived from them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_EPS = 1e-6


@dataclass(frozen=True)
class Window:
    index: int
    start_s: float
    end_s: float

    @property
    def center_s(self) -> float:
        return (self.start_s + self.end_s) / 2


def plan_windows(duration_s: float, window_s: float) -> list[Window]:
    """[0, w), [w, 2w), ... up to the last complete window; an incomplete tail is dropped."""
    if duration_s <= 0 or window_s <= 0:
        return []
    count = math.floor(duration_s / window_s + _EPS)
    return [Window(k, k * window_s, (k + 1) * window_s) for k in range(count)]


def window_counts(durations_s: np.ndarray, window_s: float) -> np.ndarray:
    """`len(plan_windows(d, window_s))` for every duration at once (int64), without building
    the windows: the driver counts a million sources' windows this way."""
    d = np.nan_to_num(np.asarray(durations_s, np.float64), nan=0.0)
    if window_s <= 0:
        return np.zeros(len(d), np.int64)
    return np.where(d > 0, np.floor(d / window_s + _EPS), 0).astype(np.int64)


def segments(window_count: int, per_segment: int) -> list[tuple[int, int]]:
    """[first, end) window ranges of at most `per_segment` windows covering a source: the unit
    of analysis work, so a long source is many tasks and a retry re-decodes one segment only."""
    step = max(1, int(per_segment))
    return [(first, min(first + step, window_count)) for first in range(0, window_count, step)]


def clip_id(source_id: str, window_index: int) -> str:
    """Derived from the source's content id and the window index: stable across reruns."""
    return f"{source_id}-{window_index:05d}"
