"""A deterministic appearance descriptor for windows, used when no CLIP weights are given.

A randomly initialized CLIP tower maps every frame into nearly one direction (adjacent windows,
other scenes and other games all land at cosine 0.94-0.996), so its similarities cannot tell a
replay from new footage. This descriptor is honest about what it sees: three unit-norm parts of
the window's centre crop, weighted and concatenated so that the cosine of two descriptors is the
weighted mean of the parts' cosines:
- structure: a 16x16 luma thumbnail, zero mean, unit norm (what is where, independent of gain);
- colour: the square root of an HSV histogram (hue x saturation, and value), unit norm;
- layout: a 4x4 grid of mean Lab colours around their mean, unit norm.
Its dedup threshold is its own (`CurateConfig.appearance_dedup_threshold`), fitted on the
sample generator's ground-truth replays (benchmarks/fit_appearance_dedup.py); clusters built on it are
appearance clusters, not semantic ones.
"""

from __future__ import annotations

import cv2
import numpy as np

STRUCTURE_SIDE = 16
LAYOUT_SIDE = 4
HUE_BINS, SAT_BINS, VALUE_BINS = 12, 4, 8
WEIGHTS = {"structure": 0.6, "colour": 0.2, "layout": 0.2}
DIM = STRUCTURE_SIDE**2 + HUE_BINS * SAT_BINS + VALUE_BINS + 3 * LAYOUT_SIDE**2


def _unit(v: np.ndarray) -> np.ndarray:
    v = v.astype(np.float32).ravel()
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 1e-6 else np.zeros_like(v)


def describe(crop: np.ndarray) -> np.ndarray:
    """(S, S, 3) uint8 RGB -> (DIM,) float32 descriptor of unit norm."""
    small = cv2.resize(crop, (64, 64), interpolation=cv2.INTER_AREA)
    gray = cv2.resize(cv2.cvtColor(small, cv2.COLOR_RGB2GRAY), (STRUCTURE_SIDE,) * 2, interpolation=cv2.INTER_AREA)
    structure = _unit(gray.astype(np.float32) - gray.mean())
    hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV)
    hue_sat = cv2.calcHist([hsv], [0, 1], None, [HUE_BINS, SAT_BINS], [0, 180, 0, 256])
    value = cv2.calcHist([hsv], [2], None, [VALUE_BINS], [0, 256])
    colour = _unit(np.sqrt(np.concatenate([hue_sat.ravel(), value.ravel()])))
    lab = cv2.resize(cv2.cvtColor(small, cv2.COLOR_RGB2LAB), (LAYOUT_SIDE,) * 2, interpolation=cv2.INTER_AREA)
    lab = lab.reshape(-1, 3).astype(np.float32)
    layout = _unit(lab - lab.mean(axis=0))
    parts = {"structure": structure, "colour": colour, "layout": layout}
    return _unit(np.concatenate([np.sqrt(WEIGHTS[k]) * parts[k] for k in WEIGHTS]))


class AppearanceEmbedder:
    """The embedder interface of `ClipEmbedder` (`dim`, `embed`), without a model."""

    name = "appearance"
    dim = DIM

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """(n, S, S, 3) uint8 RGB crops -> (n, DIM) float32 rows of unit norm."""
        return np.stack([describe(c) for c in crops]) if len(crops) else np.zeros((0, DIM), np.float32)
