"""Persistent HUD layout (Appendix B.2-B.3): spawning, anchoring, jitter, collisions, motion.

Each persistent label of Table 10 spawns on its own seed stream. A spawned widget starts at its
recorded screen centre when the asset has one, else at its formation or default anchor (the
objective marker takes a free mid-screen position), then moves by seeded jitter
U(+-0.018 W) x U(+-0.018 H). Widgets are then placed in decreasing priority: each collision
rectangle is the widget's alpha >= 8 support grown by a base padding and the full motion
envelope; overlap between rectangles is rho(A, B) = |A n B| / min(|A|, |B|). A widget takes
the candidate displacement (frame-relative or size-relative) that keeps every rho within the
threshold at the least cost sum(rho^2) + normalized displacement, and is suppressed only when
no candidate fits.
"""

from __future__ import annotations

import math

import numpy as np

from g2w.hud.profile import (
    COLLISION_PAD_FRAC,
    DISPLACEMENT_WEIGHT,
    FRAME_STEPS,
    MOTION_AMPLITUDE_FLOOR,
    MOTION_PERIOD_X_S,
    MOTION_PERIOD_Y_S,
    PERSISTENT_SPAWN,
    ROLE_PRIORS,
    SIZE_STEPS,
)
from g2w.hud.seeds import SeedStreams
from g2w.types import Box


def spawned_labels(streams: SeedStreams) -> dict[str, bool]:
    """Table 10: one independent draw per persistent label, each on its own stream."""
    return {
        label: bool(streams.rng("composition", "spawn", label).random() < p) for label, p in PERSISTENT_SPAWN.items()
    }


def sample_jitter(streams: SeedStreams, label: str, frac: tuple[float, float], width: int, height: int) -> list[float]:
    rng = streams.rng("composition", "jitter", label)
    return [
        float(rng.uniform(-frac[0] * width, frac[0] * width)),
        float(rng.uniform(-frac[1] * height, frac[1] * height)),
    ]


def sample_motion(streams: SeedStreams, label: str, role: str, width: int, height: int) -> dict:
    """Whether the widget moves, and its sinusoid amplitudes (px), phases and periods (s)."""
    prior = ROLE_PRIORS[role]
    rng = streams.rng("animation", "motion", label)
    moving = bool(rng.random() < prior.p_motion)
    ax = float(rng.uniform(MOTION_AMPLITUDE_FLOOR, 1.0) * prior.motion_frac[0] * width)
    ay = float(rng.uniform(MOTION_AMPLITUDE_FLOOR, 1.0) * prior.motion_frac[1] * height)
    motion = {
        "moving": moving,
        "amplitude": [ax, ay] if moving else [0.0, 0.0],
        "phase": [float(rng.uniform(0, 2 * math.pi)), float(rng.uniform(0, 2 * math.pi))],
        "period_s": [float(rng.uniform(*MOTION_PERIOD_X_S)), float(rng.uniform(*MOTION_PERIOD_Y_S))],
    }
    return motion


def motion_offset(motion: dict, t: float) -> tuple[int, int]:
    """Integer (dx, dy) of a widget's motion at time t (zero for a still widget)."""
    if not motion["moving"]:
        return 0, 0
    (ax, ay), (px, py), (tx, ty) = motion["amplitude"], motion["phase"], motion["period_s"]
    return (round(ax * math.sin(2 * math.pi * t / tx + px)), round(ay * math.sin(2 * math.pi * t / ty + py)))


def envelope(motion: dict) -> tuple[int, int]:
    """Largest |offset| the motion can reach, per axis."""
    ax, ay = motion["amplitude"]
    return math.ceil(round(ax, 9)), math.ceil(round(ay, 9))


def rho(a: Box, b: Box) -> float:
    """Overlap relative to the smaller rectangle (Eq. 6)."""
    small = min(a.area, b.area)
    return a.intersect(b).area / small if small else 0.0


def _candidate_moves(w: int, h: int, width: int, height: int) -> np.ndarray:
    """(K, 2) integer displacements: frame-relative first (no move first), then size-relative."""
    moves = [(round(fx * width), round(fy * height)) for fx in FRAME_STEPS for fy in FRAME_STEPS]
    for s in SIZE_STEPS:
        moves += [(round(s * w), 0), (0, round(s * h))]
        moves += [(round(s * w), round(t * h)) for t in SIZE_STEPS]
    return np.array(list(dict.fromkeys(moves)), np.int64)


def _clamp(v: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return np.clip(v, lo, hi) if lo <= hi else np.full_like(v, (lo + hi) // 2)


def _rhos(rects: np.ndarray, placed: np.ndarray) -> np.ndarray:
    """(K, M) overlap ratios between K candidate rectangles and M placed ones (Eq. 6)."""
    if len(placed) == 0:
        return np.zeros((len(rects), 0))
    ix = np.clip(
        np.minimum(rects[:, None, 2], placed[None, :, 2]) - np.maximum(rects[:, None, 0], placed[None, :, 0]), 0, None
    )
    iy = np.clip(
        np.minimum(rects[:, None, 3], placed[None, :, 3]) - np.maximum(rects[:, None, 1], placed[None, :, 1]), 0, None
    )
    area = lambda r: (r[..., 2] - r[..., 0]) * (r[..., 3] - r[..., 1])  # noqa: E731
    small = np.minimum(area(rects)[:, None], area(placed)[None, :])
    return np.where(small > 0, ix * iy / np.maximum(small, 1), 0.0)


def resolve_collisions(widgets: list[dict], width: int, height: int, threshold: float) -> None:
    """Place widgets in decreasing priority, setting `xy`, `collision` and `suppressed` on each.

    Each widget needs `priority`, `preferred` (float top-left), `support` (its alpha support box
    relative to its top-left) and `motion`. Deterministic: ties go to the earlier candidate.
    """
    pad = round(COLLISION_PAD_FRAC * min(width, height))
    placed = np.zeros((0, 4), np.int64)
    for wd in sorted(widgets, key=lambda w: (-w["priority"], w["id"])):
        sx1, sy1, sx2, sy2 = wd["support"]
        ex, ey = envelope(wd["motion"])
        px, py = (round(v) for v in wd["preferred"])
        moves = _candidate_moves(sx2 - sx1, sy2 - sy1, width, height)
        # keep the support, with its whole motion range, inside the frame
        x = _clamp(px + moves[:, 0], ex - sx1, width - ex - sx2)
        y = _clamp(py + moves[:, 1], ey - sy1, height - ey - sy2)
        rects = np.stack([x + sx1 - pad - ex, y + sy1 - pad - ey, x + sx2 + pad + ex, y + sy2 + pad + ey], axis=1)
        rhos = _rhos(rects, placed)
        worst = rhos.max(axis=1, initial=0.0)
        cost = (rhos**2).sum(axis=1) + DISPLACEMENT_WEIGHT * (np.abs(x - px) / width + np.abs(y - py) / height)
        feasible = worst <= threshold
        wd["collision"] = {"threshold": threshold, "padding": pad, "candidates": len(moves)}
        if not feasible.any():
            wd["suppressed"] = True
            wd["xy"] = [px, py]
            continue
        k = int(np.argmin(np.where(feasible, cost, np.inf)))
        placed = np.vstack([placed, rects[k : k + 1]])
        wd["suppressed"] = False
        wd["xy"] = [int(x[k]), int(y[k])]
        wd["collision"].update(
            {
                "rect": [int(v) for v in rects[k]],
                "rho_max": round(float(worst[k]), 6),
                "cost": round(float(cost[k]), 6),
                "displacement": [int(x[k]) - px, int(y[k]) - py],
            }
        )


def free_anchor(streams: SeedStreams, label: str, box) -> tuple[float, float]:
    rng = streams.rng("composition", "anchor", label)
    return float(rng.uniform(*box[0])), float(rng.uniform(*box[1]))
