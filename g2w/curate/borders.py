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


def _bar_length(lines: np.ndarray) -> int:
    """How many leading lines (rows of `lines`) are bar-like."""
    spread = lines.max(axis=1).astype(np.int16) - lines.min(axis=1)
    flat = (lines.mean(axis=1) <= BAR_MAX_LUMA) & (spread <= BAR_MAX_SPREAD)
    not_flat = np.flatnonzero(~flat)
    return int(not_flat[0]) if len(not_flat) else len(flat)


def border_bars(gray: np.ndarray) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) bar thicknesses in pixels, paired sides equal."""
    if _bar_length(gray) == gray.shape[0]:  # an all-black frame is darkness, not a letterbox
        return 0, 0, 0, 0
    vertical = min(_bar_length(gray), _bar_length(gray[::-1]))
    horizontal = min(_bar_length(gray.T), _bar_length(gray.T[::-1]))
    return vertical, vertical, horizontal, horizontal


def border_fraction(gray: np.ndarray) -> float:
    """Share of the frame covered by bars."""
    h, w = gray.shape
    top, bottom, left, right = border_bars(gray)
    return 1.0 - (max(0, h - top - bottom) * max(0, w - left - right)) / (h * w)
