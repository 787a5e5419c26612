"""The six popup animations of Table 14: sampling their parameters and evaluating them in time.

Entrance and exit durations come from each archetype's ranges and are capped at 32 % of the
event. `fade` ramps opacity with a smoothstep; `instant` cuts in and out; `slide` enters
horizontally from its nearer side and leaves with a smaller shift, ramping opacity over the
category's fade time (Table 13; the only archetype that uses it); `wipe_trail` reveals and then
removes the widget left to right with a soft trail whose front is modulated row by row (a
deterministic high-frequency pattern, so the edge is ragged like a scanline effect); `pop`
grows with an ease-out-back overshoot (fading in over the first 40 % of its entrance), settles
and shrinks away (fading out with a smoothstep); `border_arc` enters through one frame border
and leaves through another along a parabolic arc with noise along its normal. Every sampled
parameter goes into the record.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from g2w.hud.profile import (
    ANIMATION_TIMES_S,
    ANIMATION_WEIGHTS,
    ARC_HEIGHT,
    ARC_NOISE_AMPLITUDE,
    ARC_NOISE_CYCLES,
    POP_FADE_IN_SHARE,
    POP_OVERSHOOT,
    POP_START_SCALE,
    SLIDE_DISTANCE,
    SLIDE_EXIT_RATIO,
    TRANSITION_CAP,
    WIPE_JAGGED_FRAC,
    WIPE_ROW_CYCLES,
    WIPE_TRAIL_FRAC,
)

BORDERS = ("left", "right", "top", "bottom")


@dataclass(frozen=True)
class AnimState:
    """How an event looks at one instant, relative to its resting placement."""

    dx: float = 0.0  # shift of the top-left corner, pixels
    dy: float = 0.0
    scale: float = 1.0  # about the widget centre
    opacity: float = 1.0
    wipe: tuple[str, float] | None = None  # ("in" | "out", progress 0..1)


def smoothstep(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3 - 2 * x)


def ease_out_cubic(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return 1 - (1 - x) ** 3


def ease_out_back(x: float, c: float = POP_OVERSHOOT) -> float:
    x = min(1.0, max(0.0, x))
    return 1 + (c + 1) * (x - 1) ** 3 + c * (x - 1) ** 2


def _border_point(border: str, along: float, w: int, h: int, width: int, height: int) -> list[float]:
    """Top-left corner that puts the widget just outside `border`, `along` (0..1) its length."""
    if border == "left":
        return [-float(w), along * (height - h)]
    if border == "right":
        return [float(width), along * (height - h)]
    if border == "top":
        return [along * (width - w), -float(h)]
    return [along * (width - w), float(height)]


def sample_animation(
    rng: np.random.Generator,
    duration_s: float,
    fade_s: float,
    size: tuple[int, int],
    rest_xy: tuple[float, float],
    width: int,
    height: int,
) -> dict:
    """Draw one archetype and its parameters for an event of `duration_s` seconds."""
    kinds = list(ANIMATION_WEIGHTS)
    p = np.array([ANIMATION_WEIGHTS[k] for k in kinds])
    kind = kinds[int(rng.choice(len(kinds), p=p / p.sum()))]
    (in_lo, in_hi), (out_lo, out_hi) = ANIMATION_TIMES_S[kind]
    cap = TRANSITION_CAP * duration_s
    entrance = min(cap, float(rng.uniform(in_lo, in_hi)))
    exit_ = min(cap, float(rng.uniform(out_lo, out_hi)))
    anim = {"kind": kind, "entrance_s": entrance, "exit_s": exit_, "fade_s": fade_s}
    w, h = size
    shorter = min(width, height)
    if kind == "slide":
        side = 1 if rest_xy[0] + w / 2 >= width / 2 else -1  # come in from the nearer side
        distance = float(rng.uniform(*SLIDE_DISTANCE)) * width
        anim.update(direction=side, distance_px=distance, exit_ratio=float(rng.uniform(*SLIDE_EXIT_RATIO)))
    elif kind == "wipe_trail":
        anim.update(
            trail_frac=float(rng.uniform(*WIPE_TRAIL_FRAC)),
            jagged_frac=float(rng.uniform(*WIPE_JAGGED_FRAC)),
            row_cycles=[float(rng.uniform(*WIPE_ROW_CYCLES)) for _ in range(2)],
            row_phase=[float(rng.uniform(0, 2 * math.pi)) for _ in range(2)],
        )
    elif kind == "pop":
        anim.update(start_scale=POP_START_SCALE, overshoot=POP_OVERSHOOT)
    elif kind == "border_arc":
        entry = BORDERS[int(rng.integers(4))]
        exit_border = [b for b in BORDERS if b != entry][int(rng.integers(3))]
        start = _border_point(entry, float(rng.uniform(0.15, 0.85)), w, h, width, height)
        end = _border_point(exit_border, float(rng.uniform(0.15, 0.85)), w, h, width, height)
        anim.update(
            entry_border=entry,
            exit_border=exit_border,
            start_xy=start,
            end_xy=end,
            arc_height_px=float(rng.uniform(*ARC_HEIGHT)) * shorter,
            noise_amplitude_px=float(rng.uniform(*ARC_NOISE_AMPLITUDE)) * shorter,
            noise_cycles=float(rng.uniform(*ARC_NOISE_CYCLES)),
            noise_phase=float(rng.uniform(0, 2 * math.pi)),
            rest_xy=[float(rest_xy[0]), float(rest_xy[1])],
        )
    return anim


def _arc_position(anim: dict, s: float, width: int, height: int) -> tuple[float, float]:
    """Top-left corner along the noisy parabola at progress s in [0, 1]."""
    (x0, y0), (x1, y1) = anim["start_xy"], anim["end_xy"]
    bx, by = x1 - x0, y1 - y0
    length = math.hypot(bx, by) or 1.0
    nx, ny = -by / length, bx / length
    mx, my = (x0 + x1) / 2, (y0 + y1) / 2
    if nx * (width / 2 - mx) + ny * (height / 2 - my) < 0:  # bulge toward the frame centre
        nx, ny = -nx, -ny
    bulge = 4 * anim["arc_height_px"] * s * (1 - s)
    # the noise fades in and out (sin(pi s)) so the path still starts and ends beyond its borders
    noise = math.sin(2 * math.pi * anim["noise_cycles"] * s + anim["noise_phase"]) * math.sin(math.pi * s)
    bulge += anim["noise_amplitude_px"] * noise
    return x0 + bx * s + nx * bulge, y0 + by * s + ny * bulge


def animation_state(anim: dict, t: float, duration_s: float, width: int, height: int) -> AnimState:
    """The state `t` seconds into an event (0 <= t < duration)."""
    kind, entrance, exit_ = anim["kind"], anim["entrance_s"], anim["exit_s"]
    to_end = duration_s - t
    p_in = t / entrance if entrance > 0 else 1.0
    p_out = 1 - to_end / exit_ if exit_ > 0 and to_end < exit_ else 0.0
    if kind == "fade":
        return AnimState(opacity=smoothstep(p_in) * (1 - smoothstep(p_out)))
    if kind == "slide":
        ramp = min(anim["fade_s"], entrance) or 1.0
        ramp_out = min(anim["fade_s"], exit_) or 1.0
        dx = anim["direction"] * anim["distance_px"] * (1 - ease_out_cubic(p_in))
        dx += anim["direction"] * anim["distance_px"] * anim["exit_ratio"] * p_out * p_out
        opacity = min(1.0, t / ramp) * (min(1.0, to_end / ramp_out) if p_out > 0 else 1.0)
        return AnimState(dx=dx, opacity=opacity)
    if kind == "wipe_trail":
        if p_in < 1:
            return AnimState(wipe=("in", p_in))
        if p_out > 0:
            return AnimState(wipe=("out", p_out))
        return AnimState()
    if kind == "pop":
        s0 = anim["start_scale"]
        if p_in < 1:
            return AnimState(
                scale=s0 + (1 - s0) * ease_out_back(p_in, anim["overshoot"]), opacity=min(1.0, p_in / POP_FADE_IN_SHARE)
            )
        if p_out > 0:
            return AnimState(scale=1 - (1 - s0) * p_out * p_out, opacity=1 - smoothstep(p_out))
        return AnimState()
    if kind == "border_arc":
        x, y = _arc_position(anim, t / duration_s, width, height)
        rx, ry = anim["rest_xy"]
        return AnimState(dx=x - rx, dy=y - ry)
    return AnimState()  # instant


def wipe_reveal(anim: dict, direction: str, progress: float, w: int, h: int) -> np.ndarray:
    """(h, w) float32 reveal factor in [0, 1] for a wipe_trail at `progress` of its transition."""
    trail = max(1.0, anim["trail_frac"] * w)
    jag = anim["jagged_frac"] * w
    y = np.arange(h, dtype=np.float32)[:, None] / max(h, 1)
    (c1, c2), (f1, f2) = anim["row_cycles"], anim["row_phase"]
    wave = 0.5 + 0.5 * (0.6 * np.sin(2 * np.pi * c1 * y + f1) + 0.4 * np.sin(2 * np.pi * c2 * y + f2))
    x = np.arange(w, dtype=np.float32)[None, :]
    span = w + trail + jag
    if direction == "in":
        front = progress * span - jag * wave
        return np.clip((front - x) / trail, 0.0, 1.0).astype(np.float32)
    back = progress * span - trail - jag * wave
    return np.clip((x - back) / trail, 0.0, 1.0).astype(np.float32)
