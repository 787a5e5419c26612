"""Spatial priors: style choice, size limits, fitted sizes, eligibility and anchor positions.

Sizes follow Appendix B.2/B.3: a role's maximum width and height (Table 8; Table 13 for
events) are multiplied by the style's UI scale and role scale and capped at 0.92 of the frame.
An asset keeps its own aspect ratio: its natural size (its recorded scale times the frame,
times the UI scale) shrinks to fit inside the limits. An asset whose aspect ratio falls outside
the role's range stays eligible only when its fitted area is at most 4 % of the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from g2w.hud.assets import Asset
from g2w.hud.profile import (
    FORMATIONS,
    HUD_OPACITY,
    MARGIN_FRAC,
    ROLE_SCALE_CAP,
    STYLES,
    SynthProfile,
)


@dataclass(frozen=True)
class Style:
    name: str
    formation: str
    opacity_scale: float
    ui_scale: float
    transient_density: float
    role_scales: dict
    alpha_hud: float

    def role_scale(self, role: str) -> float:
        return float(self.role_scales.get(role, 1.0))

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "formation": self.formation,
            "opacity_scale": self.opacity_scale,
            "ui_scale": self.ui_scale,
            "transient_density": self.transient_density,
            "role_scales": dict(self.role_scales),
            "alpha_hud": self.alpha_hud,
        }


def make_style(name: str, base_opacity: float = HUD_OPACITY) -> Style:
    p = STYLES[name]
    alpha = float(np.clip(base_opacity * p.opacity_scale, 0.0, 1.0))  # Eq. 7
    return Style(name, p.formation, p.opacity_scale, p.ui_scale, p.transient_density, dict(p.role_scales), alpha)


def choose_style(profile: SynthProfile, rng: np.random.Generator) -> Style:
    """HUD_STYLE=auto is a uniform choice over the five presets; otherwise the named one."""
    names = sorted(STYLES)
    name = names[int(rng.integers(len(names)))] if profile.style == "auto" else profile.style
    return make_style(name, profile.opacity)


def limits(w_max: float, h_max: float, scale: float, width: int, height: int) -> tuple[float, float]:
    """Largest widget size in pixels for fractional limits times a combined scale (capped)."""
    return (min(ROLE_SCALE_CAP, w_max * scale) * width, min(ROLE_SCALE_CAP, h_max * scale) * height)


def natural_size(asset: Asset, scale: float, width: int) -> tuple[float, float]:
    """The asset at its recorded screen scale in this frame, keeping its aspect ratio."""
    w = asset.scale_w * width * scale
    return w, w / asset.aspect


def fit(size: tuple[float, float], box: tuple[float, float]) -> tuple[int, int]:
    """Shrink (never grow) `size` uniformly to fit inside `box`; integer pixels, at least 1."""
    w, h = size
    s = min(1.0, box[0] / w, box[1] / h)
    return max(1, math.floor(w * s)), max(1, math.floor(h * s))


def eligible_size(
    asset: Asset,
    aspect: tuple[float, float],
    box: tuple[float, float],
    scale: float,
    width: int,
    height: int,
    fallback_area: float,
) -> tuple[tuple[int, int] | None, bool]:
    """(fitted size, used the aspect fallback) or (None, False) when the asset is not eligible."""
    size = fit(natural_size(asset, scale, width), box)
    if aspect[0] <= asset.aspect <= aspect[1]:
        return size, False
    if size[0] * size[1] <= fallback_area * width * height:
        return size, True
    return None, False


def margin(width: int, height: int) -> int:
    return round(MARGIN_FRAC * min(width, height))


def anchor_xy(fx: float, fy: float, w: int, h: int, width: int, height: int) -> tuple[float, float]:
    """Top-left corner that puts a w x h widget at (fx, fy) of the frame's margin box."""
    m = margin(width, height)
    return m + fx * (width - 2 * m - w), m + fy * (height - 2 * m - h)


def center_xy(cx: float, cy: float, w: int, h: int) -> tuple[float, float]:
    """Top-left corner for a recorded normalized centre (already in pixels of this frame)."""
    return cx - w / 2, cy - h / 2


def formation_anchor(role: str, formation: str, default: dict) -> tuple[float, float] | None:
    return FORMATIONS[formation].get(role, default.get(role))
