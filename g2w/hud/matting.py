"""Cutting a UI element out of gameplay: temporal matting from video, GrabCut for lone images.

Temporal matting uses the one thing that separates a HUD from the game: HUD pixels stay put
while the world behind them changes. An observed pixel is c_t = a F + (1 - a) B_t, so its
temporal standard deviation is (1 - a) times the background's. The background's deviation
inside the box is unknown, so it is interpolated from a ring of pure background around the box
(normalized convolution: a blur of the ring's values divided by a blur of the ring mask). Then
a = 1 - sd(c) / sd(B) (after removing a small codec-noise floor), and the foreground colour
follows from the temporal medians: F = (median c - (1 - a) median B) / a.

Confidence combines how much the background moved (nothing to separate if it never changes),
how decisive the alpha is (few pixels stuck in between), and whether edges that persist through
the whole clip - static UI outlines - land on the extracted foreground.

A lone image has no time axis, so GrabCut (seeded with the box as the probable foreground and
the margin around it as background) gives a binary matte, feathered by a pixel; its confidence
is how well the colours inside and outside separate, capped below the temporal method's.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from g2w.types import Box

NOISE_FLOOR_MAX = 2.0  # codec noise in 8-bit levels that a still pixel may show
SNAP = 0.1  # alphas within this of 0 or 1 are snapped: the tails are noise
MOTION_FULL = 16.0  # background temporal s.d. (levels) at which motion counts as fully sufficient
EDGE_LEVEL = 48.0  # Sobel magnitude / 4 counted as an edge
EDGE_PERSIST = 0.9  # fraction of frames an edge must be present in to be "persistent"
GRABCUT_CAP = 0.5  # one binary cut-out stays below the acceptance threshold (the calibration is in the project history, docs/experiments/2026-12-05-readme-record.md)
GRABCUT_ITERS = 5
LOCAL_SIGMA = 4.0  # pixels: scale of the near-ring background estimate
LOCAL_SUPPORT = 0.15  # blurred ring-mask level at which the near estimate is fully trusted
EFFECTIVE_FRAMES_FULL = 6.0  # independent background samples for full evidence
STRUCTURE_SLACK = 8.0  # edge strength (levels) by which "transparent" parts may exceed the ring's


@dataclass
class Matte:
    rgba: np.ndarray  # (h, w, 4) uint8 over the box
    confidence: float
    method: str  # temporal_matting | grabcut
    diagnostics: dict


def _spread(values: np.ndarray, mask: np.ndarray, sigma: float, with_support: bool = False):
    """Normalized convolution: values known where mask > 0, smoothly filled in elsewhere.

    With `with_support`, also returns the blurred mask: how much known data lies within ~sigma.
    """
    k = int(2 * round(3 * sigma) + 1)
    m = mask.astype(np.float32)
    num = cv2.GaussianBlur(values.astype(np.float32) * (m if values.ndim == 2 else m[..., None]), (k, k), sigma)
    den = cv2.GaussianBlur(m, (k, k), sigma)
    out = num / np.maximum(den, 1e-6) if values.ndim == 2 else num / np.maximum(den, 1e-6)[..., None]
    return (out, den) if with_support else out


def _background_sd(sd: np.ndarray, ring: np.ndarray, sigma: float) -> np.ndarray:
    """Background motion inside the box: near the ring, from the nearest ring pixels (the world
    right next to them); deeper in, from the ring as a whole."""
    near, support = _spread(sd, ring, LOCAL_SIGMA, with_support=True)
    far = _spread(sd, ring, sigma)
    weight = np.clip(support / LOCAL_SUPPORT, 0.0, 1.0)
    return weight * near + (1 - weight) * far


def _edges(gray: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    return np.hypot(gx, gy) / 4.0


def _ring_consistency(sd: np.ndarray, ring: np.ndarray, box: Box, sigma: float) -> float:
    """How well the ring predicts background motion where it cannot see: each side of the ring
    is predicted from the other three by the same interpolation used inside the box, and the
    relative error of the side's median motion, averaged over sides, becomes a score in [0, 1].
    Texture makes single pixels vary anyway; what breaks the interpolation is a regional change
    (a static sky above a moving road), which this catches."""
    rows, cols = np.indices(sd.shape)
    sides = [
        ring & (rows < box.y1),
        ring & (rows >= box.y2),
        ring & (rows >= box.y1) & (rows < box.y2) & (cols < box.x1),
        ring & (rows >= box.y1) & (rows < box.y2) & (cols >= box.x2),
    ]
    errors = []
    for side in sides:
        if side.sum() < 4 or (ring & ~side).sum() < 4:
            continue
        pred = _spread(sd, ring & ~side, sigma)[side]
        actual = float(np.median(sd[side]))
        errors.append(abs(float(np.median(pred)) - actual) / max(actual, 1.0))
    if not errors:
        return 0.0
    return float(np.clip(1.0 - float(np.mean(errors)), 0.0, 1.0))


def temporal_matte(crops: np.ndarray, box: Box) -> Matte:
    """Matte the box inside (N, H, W, 3) uint8 crops that include a background ring around it."""
    frames = crops.astype(np.float32)
    n, height, width = frames.shape[:3]
    inside = np.zeros((height, width), bool)
    inside[box.y1 : box.y2, box.x1 : box.x2] = True
    ring = ~inside
    if ring.sum() < 16 or n < 3:
        raise ValueError("temporal matting needs at least 3 frames and a background ring around the box")
    sd = frames.std(axis=0).mean(axis=2)  # (H, W) temporal s.d., channels averaged
    median = np.median(frames, axis=0)  # (H, W, 3)
    sigma = max(box.width, box.height) / 2 + 2
    sd_bg = _background_sd(sd, ring, sigma)
    med_bg = _spread(median, ring, sigma)
    noise = min(NOISE_FLOOR_MAX, float(np.percentile(sd[inside], 5)))
    ratio = (sd - noise) / np.maximum(sd_bg - noise, 1e-3)
    alpha = (1.0 - np.clip(ratio, 0.0, 1.0)).astype(np.float32)
    alpha[alpha < SNAP] = 0.0
    alpha[alpha > 1 - SNAP] = 1.0
    a3 = alpha[..., None]
    color = np.where(a3 > 0.05, (median - (1 - a3) * med_bg) / np.maximum(a3, 0.05), median)
    sub = (slice(box.y1, box.y2), slice(box.x1, box.x2))
    rgba = np.dstack([np.clip(color[sub], 0, 255), alpha[sub] * 255]).round().astype(np.uint8)

    factors = _confidence_factors(crops, frames, sd, median, alpha, noise, ring, box, sigma)
    confidence = float(np.prod(list(factors.values())))
    a_box = alpha[sub]
    return Matte(
        rgba,
        round(confidence, 4),
        "temporal_matting",
        {
            "frames": n,
            "noise_floor": round(noise, 3),
            **{k: round(float(v), 4) for k, v in factors.items()},
            "ring_motion": round(float(np.percentile(sd[ring], 25)), 3),
            "ambiguous_fraction": round(float(((a_box > 0.15) & (a_box < 0.85)).mean()), 4),
            "coverage": round(float((a_box >= 0.5).mean()), 4),
        },
    )


def _confidence_factors(crops, frames, sd, median, alpha, noise, ring, box, sigma) -> dict:
    """The multiplicative parts of a temporal matte's confidence, each in [0, 1]:

    - motion: the background ring moves (25th percentile of its temporal s.d.);
    - evidence: effective number of independent background samples (frames whose ring is
      nearly the same as the previous one add little), from the lag-1 correlation;
    - consistency: the ring's regions predict each other (no static sky above a moving road);
    - agreement: edges present in almost every frame fall on the extracted foreground;
    - stillness: what was judged transparent has no more persistent structure than the world
      around it (UI that animates looks transparent to this method, but its median is sharp);
    - coverage: something was extracted at all.
    """
    n = len(frames)
    sub = (slice(box.y1, box.y2), slice(box.x1, box.x2))
    a_box = alpha[sub]
    ring_motion = float(np.percentile(sd[ring], 25))
    dev = (frames - median[None]).mean(axis=3)[:, ring]  # (N, ring pixels)
    lag1 = float((dev[:-1] * dev[1:]).sum() / max(np.sqrt((dev[:-1] ** 2).sum() * (dev[1:] ** 2).sum()), 1e-6))
    n_eff = n * (1 - lag1) / (1 + lag1) if lag1 > 0 else n
    grays = [cv2.cvtColor(np.ascontiguousarray(c), cv2.COLOR_RGB2GRAY).astype(np.float32) for c in crops]
    persist = np.mean([_edges(g) > EDGE_LEVEL for g in grays], axis=0)[sub] >= EDGE_PERSIST
    solid = cv2.dilate((a_box >= 0.5).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    structure = _edges(cv2.cvtColor(np.clip(median, 0, 255).astype(np.uint8), cv2.COLOR_RGB2GRAY).astype(np.float32))
    clear = np.zeros(alpha.shape, np.uint8)
    clear[sub] = cv2.erode((a_box < 0.2).astype(np.uint8), np.ones((5, 5), np.uint8))
    e_ring = float(structure[ring].mean())
    e_clear = float(structure[clear > 0].mean()) if clear.sum() >= 16 else e_ring
    return {
        "motion": np.clip((ring_motion - 2 * noise) / (MOTION_FULL - 2 * noise), 0.0, 1.0),
        "evidence": np.clip(n_eff / EFFECTIVE_FRAMES_FULL, 0.0, 1.0),
        "consistency": 0.5 + 0.5 * _ring_consistency(sd, ring, box, sigma),
        "agreement": 0.5 + 0.5 * (float(solid[persist].mean()) if persist.sum() >= 8 else 0.5),
        "stillness": 0.5 + 0.5 * np.clip(1.0 - (e_clear - e_ring) / (e_ring + STRUCTURE_SLACK), 0.0, 1.0),
        "coverage": float((a_box >= 0.5).mean() > 0.01),
    }


def grabcut_matte(image: np.ndarray, box: Box) -> Matte:
    """Matte the box of one RGB image (which should include some margin around the box)."""
    height, width = image.shape[:2]
    rect = box.clip(width, height)
    if rect.x1 == 0 and rect.y1 == 0 and rect.x2 == width and rect.y2 == height:
        rect = rect.expand(-1)  # GrabCut needs some pixels marked as background
    if rect.width < 2 or rect.height < 2:
        raise ValueError(f"box {box.to_list()} is too small for GrabCut")
    mask = np.zeros((height, width), np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    bgr = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
    cv2.setRNGSeed(0)  # GrabCut's GMM initialisation is random; fix it for reproducible assets
    cv2.grabCut(bgr, mask, (rect.x1, rect.y1, rect.width, rect.height), bgd, fgd, GRABCUT_ITERS, cv2.GC_INIT_WITH_RECT)
    fg = (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)
    alpha = cv2.GaussianBlur(fg.astype(np.float32), (3, 3), 0.8)
    alpha[~fg & (alpha < 0.5)] = 0.0  # feather inward only: nothing outside the cut gains alpha
    sub = (slice(box.y1, box.y2), slice(box.x1, box.x2))
    rgba = np.dstack([image[sub], (alpha[sub] * 255).round()]).astype(np.uint8)
    inside = fg[sub]
    frac = float(inside.mean())
    pixels = image.reshape(-1, 3).astype(np.float32)
    fgp, bgp = pixels[fg.ravel()], pixels[~fg.ravel()]
    if len(fgp) < 8 or len(bgp) < 8 or not 0.03 <= frac <= 0.97:
        separation = 0.0
    else:
        separation = float(np.linalg.norm(fgp.mean(0) - bgp.mean(0)) / (fgp.std(0).mean() + bgp.std(0).mean() + 1.0))
    confidence = GRABCUT_CAP * float(np.clip(separation / 1.5, 0.0, 1.0))
    return Matte(
        rgba,
        round(confidence, 4),
        "grabcut",
        {"foreground_fraction": round(frac, 4), "separation": round(separation, 4)},
    )
