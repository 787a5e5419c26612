"""Dynamic player-status bars (Appendix E.1).

Health and stamina follow h(t) = Smooth(t; 9.0, 0.2, 0.42, 0.96) and
s(t) = Smooth(t; 5.0, 1.6, 0.25, 0.92). Smooth(t; T, phi, lo, hi) is our reading of "a primary
sinusoid plus a lower-frequency secondary sinusoid, clipped to [0, 1]": the primary has period
T and phase phi and swings between lo and hi; the secondary has period 2.7 T and weight 0.35 of
the primary's amplitude. The clip's time origin is a per-widget offset (recorded), so clips
show different stretches of the same curves rather than all starting at t = 0.

An asset with bar geometry keeps its filled part as drawn; in the unfilled part, pixels that
are saturated (coloured fill) drop to 30 % intensity, while neutral pixels (frames, text,
track) are left alone. With no suitable asset, a procedural HP/STM panel is drawn instead; its
text is procedural, part of the mask and of the panel's box, but not an instance of its own.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.hud.profile import HEALTH_SIGNAL, SATURATED_MIN, SMOOTH_SECONDARY, STAMINA_SIGNAL, UNFILLED_GAIN

SIGNALS = {"hp": HEALTH_SIGNAL, "stm": STAMINA_SIGNAL}


def smooth(t: float, period: float, phase: float, lo: float, hi: float) -> float:
    mid, amp = (lo + hi) / 2, (hi - lo) / 2
    mult, weight = SMOOTH_SECONDARY
    wave = math.sin(2 * math.pi * t / period + phase) + weight * math.sin(2 * math.pi * t / (mult * period) + 2 * phase)
    return min(1.0, max(0.0, mid + amp * wave))


def level(kind: str, t: float, offset_s: float) -> float:
    return smooth(t + offset_s, *SIGNALS[kind])


def fill_pixels(bar_width: int, value: float) -> int:
    return int(round(value * bar_width))


def apply_fill(rgba: np.ndarray, bars: list[dict], fills: list[int]) -> np.ndarray:
    """Darken the saturated pixels of each bar's unfilled part; `fills` are filled widths in px.

    `bars` hold `box` ([x1, y1, x2, y2] in this patch's pixels) and fill left to right.
    """
    out = rgba.copy()
    for bar, filled in zip(bars, fills):
        x1, y1, x2, y2 = bar["box"]
        start = x1 + filled
        if start >= x2:
            continue
        region = out[y1:y2, start:x2, :3]
        sat = cv2.cvtColor(np.ascontiguousarray(region), cv2.COLOR_RGB2HSV)[..., 1] >= SATURATED_MIN * 255
        region[sat] = np.rint(region[sat].astype(np.float32) * UNFILLED_GAIN).astype(np.uint8)
    return out


def scale_bars(bars: list[dict], sx: float, sy: float) -> list[dict]:
    """Bar boxes of an asset mapped onto its fitted size (at least 1 px wide and tall)."""
    out = []
    for bar in bars:
        x1, y1, x2, y2 = bar["box"]
        nx1, ny1 = math.floor(x1 * sx), math.floor(y1 * sy)
        out.append({**bar, "box": [nx1, ny1, max(nx1 + 1, math.ceil(x2 * sx)), max(ny1 + 1, math.ceil(y2 * sy))]})
    return out


# ---- procedural panel ------------------------------------------------------------------------

PANEL_PALETTES = (  # (hp fill, stm fill, backing) RGB (ours)
    ((214, 48, 49), (241, 196, 15), (16, 18, 24)),
    ((46, 204, 113), (52, 152, 219), (12, 20, 18)),
    ((231, 76, 60), (46, 204, 113), (28, 22, 30)),
    ((255, 99, 72), (162, 155, 254), (18, 18, 36)),
)


def procedural_panel_layout(width: int, height: int) -> dict:
    """Geometry of a w x h HP/STM panel: bar boxes and text anchors, in panel pixels."""
    pad = max(2, height // 10)
    label_w = int(width * 0.2)
    row_h = (height - 3 * pad) // 2
    x1, x2 = pad + label_w, width - pad
    bars = [
        {"kind": "hp", "box": [x1, pad, x2, pad + row_h]},
        {"kind": "stm", "box": [x1, 2 * pad + row_h, x2, 2 * pad + 2 * row_h]},
    ]
    return {"pad": pad, "label_w": label_w, "row_h": row_h, "bars": bars}


def draw_procedural_panel(width: int, height: int, palette: int, values: tuple[int, int]) -> np.ndarray:
    """An RGBA HP/STM panel: translucent backing, labelled bars (full), percentages as text."""
    hp_color, stm_color, backing = PANEL_PALETTES[palette % len(PANEL_PALETTES)]
    geo = procedural_panel_layout(width, height)
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        [0, 0, width - 1, height - 1],
        radius=max(2, height // 6),
        fill=(*backing, 170),
        outline=(220, 220, 220, 200),
        width=max(1, height // 40),
    )
    text_size = max(6, int(geo["row_h"] * 0.8))
    for bar, color, name, value in zip(geo["bars"], (hp_color, stm_color), ("HP", "STM"), values):
        x1, y1, x2, y2 = bar["box"]
        d.rectangle([x1, y1, x2 - 1, y2 - 1], fill=(*color, 235))
        d.rectangle([x1, y1, x2 - 1, y2 - 1], outline=(245, 245, 245, 230), width=1)
        d.text(
            (geo["pad"], (y1 + y2) // 2),
            name,
            font=font(text_size, bold=True),
            fill=(240, 240, 240, 255),
            anchor="lm",
            stroke_width=1,
            stroke_fill=(0, 0, 0, 200),
        )
        d.text(
            (x2 - 3, (y1 + y2) // 2),
            f"{value}",
            font=font(max(6, int(text_size * 0.85)), bold=True),
            fill=(255, 255, 255, 255),
            anchor="rm",
            stroke_width=1,
            stroke_fill=(0, 0, 0, 220),
        )
    return np.asarray(img)
