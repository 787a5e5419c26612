"""Drawing one line of HUD text as a straight-alpha RGBA patch: coloured spans, an outline or a
drop shadow, and optionally a translucent strip behind it.

Games keep text readable over any world by an outline (a dark stroke round every glyph), a drop
shadow (a dark copy offset by a pixel or two) or nothing at all, and some put feed and chat lines
on a dark see-through strip. Pillow rasterizes each part as an 8-bit coverage mask and the parts
are composited in straight alpha here (strip, then shadow, then outline, then fill), so glyph
edges keep their colour instead of fading through black, and the patch's alpha is exactly the
alpha that is composited and masked.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import face


def over(dst: np.ndarray, rgb, alpha: np.ndarray) -> None:
    """In place: straight-alpha `rgb` (a colour or an (h, w, 3) array) with `alpha` in [0, 1] over
    the float32 (h, w, 4) straight-alpha image `dst` (alpha in [0, 1])."""
    a_d = dst[..., 3]
    out_a = alpha + a_d * (1.0 - alpha)
    safe = np.where(out_a > 0, out_a, 1.0)[..., None]
    src = np.broadcast_to(np.asarray(rgb, np.float32), dst[..., :3].shape)
    dst[..., :3] = (src * alpha[..., None] + dst[..., :3] * (a_d * (1.0 - alpha))[..., None]) / safe
    dst[..., 3] = out_a


def text_size(spans: list[list], font_name: str, size: int) -> tuple[int, int, int]:
    """(advance width, ascent, descent) of the concatenated span texts."""
    f = face(font_name, size)
    width = sum(f.getlength(text) for text, _ in spans)
    ascent, descent = f.getmetrics()
    return int(np.ceil(width)), ascent, descent


def text_patch(spans: list[list], style: dict) -> np.ndarray:
    """(h, w, 4) uint8 RGBA of one line: `spans` is [[text, [r, g, b]], ...] drawn left to right.

    `style`: face, size, edge ("outline" | "shadow" | "plain"), edge_px, edge_color, shadow
    ([dx, dy]), strip (None or {"color", "opacity", "pad"}), opacity (scales every part)."""
    f = face(style["face"], style["size"])
    width, ascent, descent = text_size(spans, style["face"], style["size"])
    edge, e = style["edge"], int(style.get("edge_px", 1))
    sdx, sdy = (int(v) for v in style.get("shadow", [1, 1])) if edge == "shadow" else (0, 0)
    strip = style.get("strip")
    pad = int(strip["pad"]) if strip else 0
    margin = max(e if edge == "outline" else 0, pad) + 1
    w = width + 2 * margin + sdx
    h = ascent + descent + 2 * margin + sdy
    ox, oy = margin, margin

    fill_masks = []
    x = float(ox)
    for text, colour in spans:
        m = Image.new("L", (w, h), 0)
        ImageDraw.Draw(m).text((x, oy), text, font=f, fill=255)
        fill_masks.append((np.asarray(m, np.float32) / 255.0, colour))
        x += f.getlength(text)
    fill = np.max([m for m, _ in fill_masks], axis=0) if fill_masks else np.zeros((h, w), np.float32)

    out = np.zeros((h, w, 4), np.float32)
    if strip:
        a = np.zeros((h, w), np.float32)
        a[oy - pad + 1 : oy + ascent + descent + pad, ox - pad : ox + width + pad] = strip["opacity"]
        over(out, strip["color"], a)
    if edge == "shadow":
        shifted = np.zeros_like(fill)  # offsets are non-negative: the shadow falls right and down
        shifted[sdy:, sdx:] = fill[: h - sdy, : w - sdx]
        over(out, style["edge_color"], shifted * 0.85)
    elif edge == "outline":
        m = Image.new("L", (w, h), 0)
        x = float(ox)
        draw = ImageDraw.Draw(m)
        for text, _ in spans:
            draw.text((x, oy), text, font=f, fill=255, stroke_width=e, stroke_fill=255)
            x += f.getlength(text)
        over(out, style["edge_color"], np.asarray(m, np.float32) / 255.0)
    colour = np.zeros((h, w, 3), np.float32)
    for m, c in fill_masks:
        colour[m > 0] = c
    over(out, colour, fill)
    alpha = np.rint(out[..., 3] * 255.0 * np.float32(style.get("opacity", 1.0)))
    alpha[alpha < style.get("threshold", 1)] = 0
    rgb = np.rint(np.clip(out[..., :3], 0, 255))
    return np.dstack([rgb, alpha]).astype(np.uint8)
