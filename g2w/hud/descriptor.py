"""The hand-crafted appearance descriptor of Appendix D.2, for assets and for video frames.

Alpha weights every pixel, and gradients are taken on the alpha-premultiplied image, so an
asset's transparent surroundings say nothing about its look.
Groups: histograms of HSV hue, saturation and value; Lab a and b; gray level; gradient
orientation (magnitude-weighted); log gradient magnitude; then six scalars (mean value, mean
saturation, mean edge magnitude, edge density, 10th and 90th value percentiles). Each group is
L2-normalized, then the concatenation is, so a cosine similarity is a plain dot product.
"""

from __future__ import annotations

import cv2
import numpy as np

MAX_SIDE = 160  # descriptors are computed on a downscaled copy: colour statistics barely change
EDGE_THRESHOLD = 40.0  # Sobel magnitude (on 0-255 gray) that counts as an edge
# (name, bins, low, high) for each histogram group
_HISTOGRAMS = (
    ("hue", 18, 0.0, 180.0),
    ("saturation", 8, 0.0, 256.0),
    ("value", 8, 0.0, 256.0),
    ("lab_a", 8, 64.0, 192.0),
    ("lab_b", 8, 64.0, 192.0),
    ("gray", 8, 0.0, 256.0),
    ("orientation", 8, 0.0, np.pi),
    ("log_magnitude", 8, 0.0, 7.0),
)
DIMENSIONS = sum(b for _, b, _, _ in _HISTOGRAMS) + 6


def _l2(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 0 else v


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    k = int(np.searchsorted(cum, q * cum[-1]))
    return float(values[order][min(k, len(order) - 1)])


def _downscale(rgb: np.ndarray, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h, w = rgb.shape[:2]
    scale = MAX_SIDE / max(h, w)
    if scale >= 1:
        return rgb, alpha
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return (cv2.resize(rgb, size, interpolation=cv2.INTER_AREA), cv2.resize(alpha, size, interpolation=cv2.INTER_AREA))


def appearance_descriptor(rgb: np.ndarray, alpha: np.ndarray | None = None) -> np.ndarray:
    """A DIMENSIONS-long float32 unit vector for an RGB image, weighted by alpha (0-255) if given.

    A fully transparent image gives the zero vector (it has no appearance).
    """
    if alpha is None:
        alpha = np.full(rgb.shape[:2], 255, np.uint8)
    rgb, alpha = _downscale(np.ascontiguousarray(rgb), np.ascontiguousarray(alpha))
    weight = alpha.astype(np.float32).ravel() / 255.0
    if weight.sum() <= 0:
        return np.zeros(DIMENSIONS, np.float32)
    hsv = cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV).reshape(-1, 3).astype(np.float32)
    lab = cv2.cvtColor(rgb, cv2.COLOR_RGB2LAB).reshape(-1, 3).astype(np.float32)
    gray = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY).astype(np.float32)
    # gradients of the alpha-premultiplied gray: whatever colour hides under alpha 0 cannot leak in
    shown = gray * (alpha.astype(np.float32) / 255.0)
    gx = cv2.Sobel(shown, cv2.CV_32F, 1, 0, ksize=3).ravel() / 4.0  # /4: a 0->255 step reads ~255
    gy = cv2.Sobel(shown, cv2.CV_32F, 0, 1, ksize=3).ravel() / 4.0
    magnitude = np.hypot(gx, gy)
    orientation = np.mod(np.arctan2(gy, gx), np.pi)
    channels = {
        "hue": (hsv[:, 0], weight),
        "saturation": (hsv[:, 1], weight),
        "value": (hsv[:, 2], weight),
        "lab_a": (lab[:, 1], weight),
        "lab_b": (lab[:, 2], weight),
        "gray": (gray.ravel(), weight),
        "orientation": (orientation, weight * magnitude),
        "log_magnitude": (np.log1p(magnitude), weight),
    }
    groups = []
    for name, bins, lo, hi in _HISTOGRAMS:
        values, w = channels[name]
        hist, _ = np.histogram(np.clip(values, lo, np.nextafter(hi, lo)), bins=bins, range=(lo, hi), weights=w)
        groups.append(_l2(hist.astype(np.float32)))
    total = weight.sum()
    value, saturation = hsv[:, 2] / 255.0, hsv[:, 1] / 255.0
    scalars = np.array(
        [
            (value * weight).sum() / total,
            (saturation * weight).sum() / total,
            min(1.0, (magnitude * weight).sum() / total / 255.0),
            (weight * (magnitude > EDGE_THRESHOLD)).sum() / total,
            _weighted_quantile(value, weight, 0.10),
            _weighted_quantile(value, weight, 0.90),
        ],
        np.float32,
    )
    groups.append(_l2(scalars))
    return _l2(np.concatenate(groups)).astype(np.float32)
