"""The horizontal field of view, estimated from the footage when it is not given.

A camera that turns in place maps one frame to another by H = K R K^-1, so with the right focal
length K^-1 H K is a rotation: its three singular values are equal (Hartley's self-calibration of
a rotating camera). Game cameras turn constantly and their translation between frames a few
apart is small against the scene's depth, so the focal length that makes the homographies of
such frame pairs most rotation-like is a usable estimate. Pairs that barely turn say nothing
about the focal length and are left out; with none left the default is returned, and the
record says so.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from g2w.trajectory.estimate import TrackerConfig, _corners, _track, intrinsics

DEFAULT_HFOV_DEG = 90.0
CANDIDATES_DEG = np.arange(40.0, 131.0, 1.0)
PAIR_GAP = 6  # frames between the two frames of a pair
MAX_PAIRS = 20
MIN_TURN_PX = 8.0  # median corner motion below which a pair says nothing about the focal length


def _pairs(frames: Iterable[tuple[float, np.ndarray]], mask, cfg: TrackerConfig) -> list[tuple[np.ndarray, np.ndarray]]:
    """Corner correspondences of frame pairs PAIR_GAP apart, tracked through the frames between."""
    pairs, prev, pts, start, alive = [], None, None, None, None
    for i, (_, gray) in enumerate(frames):
        if prev is None or i % PAIR_GAP == 0:
            if pts is not None and alive is not None and alive.sum() >= cfg.min_tracks:
                moved = np.median(np.linalg.norm(pts[alive] - start[alive], axis=1))
                if moved >= MIN_TURN_PX:
                    pairs.append((start[alive].copy(), pts[alive].copy()))
                    if len(pairs) >= MAX_PAIRS:
                        break
            start = _corners(gray, mask, cfg)
            pts, alive = start.copy(), np.ones(len(start), bool)
        else:
            good, moved_pts = _track(prev, gray, pts[alive], cfg)
            idx = np.flatnonzero(alive)
            alive[idx[~good]] = False
            pts[idx[good]] = moved_pts[good]
        prev = gray
    return pairs


def rotation_likeness(h: np.ndarray, k: np.ndarray) -> float:
    """(s1 - s3) / s2 of K^-1 H K: 0 for an exact rotation."""
    s = np.linalg.svd(np.linalg.inv(k) @ h @ k, compute_uv=False)
    return float((s[0] - s[2]) / max(s[1], 1e-12))


def estimate_hfov(
    frames: Iterable[tuple[float, np.ndarray]], size: tuple[int, int], mask, cfg: TrackerConfig
) -> tuple[float, dict]:
    """(horizontal field of view in degrees, a record of how it was found)."""
    homographies = []
    for p0, p1 in _pairs(frames, mask, cfg):
        h, inl = cv2.findHomography(p0, p1, cv2.RANSAC, cfg.ransac_px)
        if h is not None and int(inl.sum()) >= cfg.min_tracks:
            homographies.append(h)
    if not homographies:
        return DEFAULT_HFOV_DEG, {"hfov_pairs": 0, "hfov_note": "no turning stretch to calibrate from: default used"}
    scores = np.array([[rotation_likeness(h, intrinsics(*size, fov)) for h in homographies] for fov in CANDIDATES_DEG])
    best = float(CANDIDATES_DEG[int(np.argmin(np.median(scores, axis=1)))])
    if best in (CANDIDATES_DEG[0], CANDIDATES_DEG[-1]):
        return DEFAULT_HFOV_DEG, {
            "hfov_pairs": len(homographies),
            "hfov_note": f"estimate at the search bound ({best:g}): default used",
        }
    return best, {"hfov_pairs": len(homographies), "hfov_note": ""}
