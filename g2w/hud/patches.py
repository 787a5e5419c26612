"""RGBA patch operations shared by layout, rendering and annotation.

A patch is an (h, w, 4) uint8 straight-alpha image. Resizing goes through premultiplied alpha
so transparent pixels never bleed colour into edges. `with_opacity` produces the alpha that is
actually composited: scaled, rounded, and zeroed below the alpha threshold, so the composited
pixels, the mask and the tightened boxes all describe exactly the same support.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.types import Box


def resize_rgba(rgba: np.ndarray, width: int, height: int) -> np.ndarray:
    """Resample an RGBA patch to width x height through premultiplied alpha."""
    h, w = rgba.shape[:2]
    if (w, h) == (width, height):
        return rgba
    a = rgba[..., 3:4].astype(np.float32) / 255.0
    pre = np.concatenate([rgba[..., :3].astype(np.float32) * a, a * 255.0], axis=2)
    shrinking = width * height < w * h
    out = cv2.resize(pre, (width, height), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR)
    alpha = np.clip(out[..., 3:4], 0.0, 255.0)
    color = np.where(alpha > 0, out[..., :3] * 255.0 / np.maximum(alpha, 1e-6), 0.0)
    return np.concatenate([np.clip(color, 0, 255), alpha], axis=2).round().astype(np.uint8)


def with_opacity(rgba: np.ndarray, opacity, threshold: int) -> np.ndarray:
    """A copy whose alpha is round(alpha * opacity), set to 0 where it falls below `threshold`.

    `opacity` is a scalar or an (h, w) float array (a reveal mask).
    """
    alpha = np.rint(rgba[..., 3].astype(np.float32) * np.asarray(opacity, np.float32))
    alpha[alpha < threshold] = 0
    out = rgba.copy()
    out[..., 3] = np.clip(alpha, 0, 255).astype(np.uint8)
    return out


def support_box(alpha: np.ndarray, threshold: int = 1) -> Box:
    """The tight box of pixels with alpha >= threshold, in patch coordinates (empty if none)."""
    rows = np.flatnonzero((alpha >= threshold).any(axis=1))
    if len(rows) == 0:
        return Box(0, 0, 0, 0)
    cols = np.flatnonzero((alpha[rows[0] : rows[-1] + 1] >= threshold).any(axis=0))
    return Box(int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1)


def visible_part(x: int, y: int, w: int, h: int, width: int, height: int) -> tuple[Box, Box]:
    """For a w x h patch at (x, y): (part of the patch inside the frame, where it lands)."""
    dst = Box(x, y, x + w, y + h).clip(width, height)
    return dst.shift(-x, -y), dst
