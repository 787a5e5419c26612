"""Drawing primitives for procedural HUD assets: palettes, gradients, panels, text, glow.

Everything draws into Pillow RGBA images at the 1280x720 reference scale, with real fonts
(`g2w.fonts`), straight alpha, outlines and soft shadows, the way game UI layers are drawn.
"""

from __future__ import annotations

import colorsys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from g2w.fonts import FAMILIES, font

Color = tuple[int, int, int]


def hsv(h: float, s: float, v: float) -> Color:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return int(r * 255), int(g * 255), int(b * 255)


def palette(rng: np.random.Generator) -> dict:
    """A coherent HUD colour scheme around one accent hue (sci-fi cyan, fantasy gold, ...)."""
    hue = float(rng.choice([0.0, 0.08, 0.13, 0.33, 0.5, 0.55, 0.6, 0.75, 0.9])) + float(rng.uniform(-0.02, 0.02))
    dark = float(rng.uniform(0.06, 0.16))
    return {
        "accent": hsv(hue, rng.uniform(0.55, 0.9), rng.uniform(0.85, 1.0)),
        "accent2": hsv(hue + rng.uniform(0.08, 0.5), rng.uniform(0.5, 0.85), rng.uniform(0.8, 1.0)),
        "text": hsv(hue, rng.uniform(0.0, 0.15), rng.uniform(0.92, 1.0)),
        "backing": hsv(hue, rng.uniform(0.2, 0.5), dark),
        "backing_alpha": int(rng.uniform(110, 215)),
        "danger": (226, 56, 52),
        "good": (76, 214, 96),
        "warn": (246, 190, 48),
        "family": str(rng.choice(FAMILIES)),
        "radius": int(rng.choice([0, 3, 6, 10])),
    }


def new(w: int, h: int) -> Image.Image:
    return Image.new("RGBA", (max(1, int(w)), max(1, int(h))), (0, 0, 0, 0))


def gradient(w: int, h: int, start: tuple, end: tuple, vertical: bool = True) -> Image.Image:
    """A linear RGBA gradient from `start` to `end` (4-tuples)."""
    n = h if vertical else w
    t = np.linspace(0.0, 1.0, max(n, 1), dtype=np.float32)[:, None]
    line = np.array(start, np.float32) * (1 - t) + np.array(end, np.float32) * t
    arr = np.repeat(line[:, None, :], w, axis=1) if vertical else np.repeat(line[None, :, :], h, axis=0)
    return Image.fromarray(arr.round().astype(np.uint8), "RGBA")


def panel(
    w: int,
    h: int,
    pal: dict,
    radius: int | None = None,
    alpha: int | None = None,
    outline: tuple | None = None,
    outline_width: int = 2,
    shade: float = 0.55,
) -> Image.Image:
    """A rounded backing panel with a vertical shade gradient and an optional outline."""
    radius = pal["radius"] if radius is None else radius
    a = pal["backing_alpha"] if alpha is None else alpha
    top = (*pal["backing"], a)
    bottom = (*(int(c * shade) for c in pal["backing"]), min(255, a + 25))
    fill = gradient(w, h, top, bottom)
    mask = new(w, h)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, w - 1, h - 1], radius=radius, fill=(255, 255, 255, 255))
    out = new(w, h)
    out.paste(fill, (0, 0), mask.getchannel("A"))
    if outline is not None:
        ImageDraw.Draw(out).rounded_rectangle([0, 0, w - 1, h - 1], radius=radius, outline=outline, width=outline_width)
    return out


def text_image(
    text: str,
    size: int,
    fill: tuple,
    family: str = "sans",
    bold: bool = True,
    stroke: int = 2,
    stroke_fill: tuple = (0, 0, 0, 210),
    pad: int = 2,
) -> Image.Image:
    """Text with an outline on a transparent image cropped to the ink (plus `pad`)."""
    f = font(size, bold, family)
    x0, y0, x1, y1 = f.getbbox(text, stroke_width=stroke)
    img = new(x1 - x0 + 2 * pad, y1 - y0 + 2 * pad)
    ImageDraw.Draw(img).text(
        (pad - x0, pad - y0), text, font=f, fill=fill, stroke_width=stroke, stroke_fill=stroke_fill
    )
    return img


def shadow(img: Image.Image, radius: float = 3.0, strength: float = 0.7, offset: tuple = (2, 2)) -> Image.Image:
    """The image over a soft dark drop shadow (grown canvas), as UI text is often drawn."""
    pad = int(radius * 2) + max(abs(offset[0]), abs(offset[1]))
    w, h = img.size
    out = new(w + 2 * pad, h + 2 * pad)
    a = np.asarray(img.getchannel("A"), np.float32) * strength
    layer = np.zeros((h + 2 * pad, w + 2 * pad, 4), np.uint8)
    layer[pad + offset[1] : pad + offset[1] + h, pad + offset[0] : pad + offset[0] + w, 3] = a.astype(np.uint8)
    dark = Image.fromarray(layer, "RGBA").filter(ImageFilter.GaussianBlur(radius))
    out.alpha_composite(dark)
    out.alpha_composite(img, (pad, pad))
    return out


def glow(img: Image.Image, color: Color, radius: float = 4.0, strength: float = 0.8) -> Image.Image:
    """The image over a coloured blurred halo, the neon look of sci-fi HUDs."""
    pad = int(radius * 2)
    w, h = img.size
    layer = np.zeros((h + 2 * pad, w + 2 * pad, 4), np.uint8)
    layer[..., :3] = color
    layer[pad : pad + h, pad : pad + w, 3] = (np.asarray(img.getchannel("A"), np.float32) * strength).astype(np.uint8)
    halo = Image.fromarray(layer, "RGBA").filter(ImageFilter.GaussianBlur(radius))
    halo.alpha_composite(img, (pad, pad))
    return halo


def paste(dst: Image.Image, src: Image.Image, x: float, y: float) -> None:
    """Alpha-composite `src` onto `dst` at (x, y), clipping at the edges."""
    x, y = int(round(x)), int(round(y))
    sx0, sy0 = max(0, -x), max(0, -y)
    sx1, sy1 = min(src.width, dst.width - x), min(src.height, dst.height - y)
    if sx1 > sx0 and sy1 > sy0:
        dst.alpha_composite(src.crop((sx0, sy0, sx1, sy1)), (x + sx0, y + sy0))


def finish(img: Image.Image) -> np.ndarray:
    return np.asarray(img.convert("RGBA")).copy()
