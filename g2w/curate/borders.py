"""Letterbox and pillarbox bars: uniform dark rows/columns running in from opposite edges.

A bar line is one whose pixels are all nearly the same dark value. Bars come in pairs (top and
bottom, or left and right) because they pad a picture into a frame of another shape, so only the
part present on both sides counts: a dark sky at the top of a scene is not a letterbox. Quality
takes the median over a window's samples, so a dark moment passing through does not count.
"""

from __future__ import annotations

import numpy as np

BAR_MAX_LUMA = 30.0  # bars are black or near-black
BAR_MAX_SPREAD = 6.0  # max - min luma along a bar line (codec noise, not content)


def _flat_lines(gray: np.ndarray, axis: int) -> np.ndarray:
    """Per row (axis=1) or column (axis=0): whether that whole line is bar-like. One reduction
    pass per direction serves both of its sides."""
    spread = gray.max(axis=axis).astype(np.int16) - gray.min(axis=axis)
    return (gray.mean(axis=axis) <= BAR_MAX_LUMA) & (spread <= BAR_MAX_SPREAD)


def _leading(flat: np.ndarray) -> int:
    """How many leading entries of `flat` are True."""
    not_flat = np.flatnonzero(~flat)
    return int(not_flat[0]) if len(not_flat) else len(flat)


def border_bars(gray: np.ndarray) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) bar thicknesses in pixels, paired sides equal."""
    rows = _flat_lines(gray, 1)
    if rows.all():  # an all-black frame is darkness, not a letterbox
        return 0, 0, 0, 0
    columns = _flat_lines(gray, 0)
    vertical = min(_leading(rows), _leading(rows[::-1]))
    horizontal = min(_leading(columns), _leading(columns[::-1]))
    return vertical, vertical, horizontal, horizontal


def border_fraction(gray: np.ndarray) -> float:
    """Share of the frame covered by bars."""
    h, w = gray.shape
    top, bottom, left, right = border_bars(gray)
    return 1.0 - (max(0, h - top - bottom) * max(0, w - left - right)) / (h * w)
