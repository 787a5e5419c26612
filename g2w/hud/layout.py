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
    return {label: bool(streams.rng("composition", "spawn", label).random() < p)
            for label, p in PERSISTENT_SPAWN.items()}


def sample_jitter(streams: SeedStreams, label: str, frac: tuple[float, float], width: int, height: int) -> list[float]:
    rng = streams.rng("composition", "jitter", label)
    return [float(rng.uniform(-frac[0] * width, frac[0] * width)),
            float(rng.uniform(-frac[1] * height, frac[1] * height))]


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


def _candidate_moves(w: int, h: int, width: int, height: int) -> list[tuple[int, int]]:
    moves = [(round(fx * width), round(fy * height)) for fx in FRAME_STEPS for fy in FRAME_STEPS]
    for s in SIZE_STEPS:
        moves += [(round(s * w), 0), (0, round(s * h))]
        moves += [(round(s * w), round(t * h)) for t in SIZE_STEPS]
    seen, out = set(), []
    for m in moves:
        if m not in seen:
            seen.add(m)
            out.append(m)
    return out


def _clamp(v: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, v)) if lo <= hi else (lo + hi) // 2


def resolve_collisions(widgets: list[dict], width: int, height: int, threshold: float) -> None:
    """Place widgets in decreasing priority, setting `xy`, `collision` and `suppressed` on each.

    Each widget needs `priority`, `preferred` (float top-left), `support` (its alpha support box
    relative to its top-left) and `motion`. Deterministic: ties keep the candidate order.
    """
    pad = round(COLLISION_PAD_FRAC * min(width, height))
    placed: list[Box] = []
    for wd in sorted(widgets, key=lambda w: (-w["priority"], w["id"])):
        support = Box.from_list(wd["support"])
        ex, ey = envelope(wd["motion"])
        px, py = (round(v) for v in wd["preferred"])
        # keep the support, with its whole motion range, inside the frame
        xlo, xhi = ex - support.x1, width - ex - support.x2
        ylo, yhi = ey - support.y1, height - ey - support.y2
        best = None
        moves = _candidate_moves(support.width, support.height, width, height)
        for dx, dy in moves:
            x, y = _clamp(px + dx, xlo, xhi), _clamp(py + dy, ylo, yhi)
            rect = support.shift(x, y).expand(pad + ex, pad + ey)
            rhos = [rho(rect, other) for other in placed]
            worst = max(rhos, default=0.0)
            if worst > threshold:
                continue
            cost = sum(r * r for r in rhos) + DISPLACEMENT_WEIGHT * (abs(x - px) / width + abs(y - py) / height)
            if best is None or cost < best[0]:
                best = (cost, x, y, rect, worst)
        wd["collision"] = {"threshold": threshold, "padding": pad, "candidates": len(moves)}
        if best is None:
            wd["suppressed"] = True
            wd["xy"] = [px, py]
            continue
        cost, x, y, rect, worst = best
        placed.append(rect)
        wd["suppressed"] = False
        wd["xy"] = [x, y]
        wd["collision"].update({"rect": rect.to_list(), "rho_max": round(worst, 6), "cost": round(cost, 6),
                                "displacement": [x - px, y - py]})


def free_anchor(streams: SeedStreams, label: str, box) -> tuple[float, float]:
    rng = streams.rng("composition", "anchor", label)
    return float(rng.uniform(*box[0])), float(rng.uniform(*box[1]))

