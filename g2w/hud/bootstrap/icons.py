"""Small procedural icons: inventory items (potions, blades, gems, ...) and HUD glyphs.

Each icon is drawn on a transparent square with a dark outline and a light-to-dark fill so it
reads at 24-64 px, like item sprites in a hotbar.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from g2w.hud.bootstrap.draw import Color, gradient, hsv, new

ITEM_KINDS = ("potion", "sword", "gem", "shield", "coin", "heart", "key", "bomb", "apple", "arrow", "scroll", "ammo")


def _shape_fill(size: int, polygon_fn, light: Color, dark: Color, outline=(20, 16, 14, 255), width=2) -> Image.Image:
    """Fill the shape drawn by `polygon_fn(draw, fill)` with a diagonal-ish shade gradient."""
    mask = new(size, size)
    polygon_fn(ImageDraw.Draw(mask), (255, 255, 255, 255), None, 0)
    shade = gradient(size, size, (*light, 255), (*dark, 255))
    out = new(size, size)
    out.paste(shade, (0, 0), mask.getchannel("A"))
    polygon_fn(ImageDraw.Draw(out), None, outline, width)
    return out


def item_icon(rng: np.random.Generator, size: int, kind: str | None = None) -> Image.Image:
    """One item sprite of `size` x `size` pixels."""
    kind = kind or str(rng.choice(ITEM_KINDS))
    s = size
    hue = float(rng.uniform(0, 1))
    light, dark = hsv(hue, 0.55, 1.0), hsv(hue, 0.9, 0.45)
    lw = max(1, s // 20)

    def poly(points):
        pts = [(x * s, y * s) for x, y in points]
        return lambda d, fill, outline, width: d.polygon(pts, fill=fill, outline=outline, width=width)

    def ellipse(box):
        b = [v * s for v in box]
        return lambda d, fill, outline, width: d.ellipse(b, fill=fill, outline=outline, width=width)

    if kind == "potion":
        img = _shape_fill(s, ellipse((0.2, 0.35, 0.8, 0.92)), light, dark, width=lw)
        neck = new(s, s)
        ImageDraw.Draw(neck).rectangle(
            [0.4 * s, 0.12 * s, 0.6 * s, 0.38 * s], fill=(200, 210, 220, 230), outline=(20, 16, 14, 255), width=lw
        )
        neck.alpha_composite(img)
        img = neck
        ImageDraw.Draw(img).ellipse([0.32 * s, 0.5 * s, 0.45 * s, 0.63 * s], fill=(255, 255, 255, 150))
    elif kind == "sword":
        img = _shape_fill(
            s, poly([(0.78, 0.08), (0.9, 0.2), (0.42, 0.68), (0.32, 0.58)]), (235, 240, 245), (120, 130, 140), width=lw
        )
        d = ImageDraw.Draw(img)
        d.line([(0.22 * s, 0.56 * s), (0.44 * s, 0.78 * s)], fill=(*dark, 255), width=max(2, s // 10))
        d.line([(0.14 * s, 0.86 * s), (0.34 * s, 0.66 * s)], fill=(110, 70, 40, 255), width=max(2, s // 9))
    elif kind == "gem":
        img = _shape_fill(s, poly([(0.5, 0.1), (0.86, 0.38), (0.5, 0.92), (0.14, 0.38)]), light, dark, width=lw)
        ImageDraw.Draw(img).line([(0.14 * s, 0.38 * s), (0.86 * s, 0.38 * s)], fill=(255, 255, 255, 160), width=lw)
    elif kind == "shield":
        img = _shape_fill(
            s, poly([(0.15, 0.12), (0.85, 0.12), (0.85, 0.45), (0.5, 0.92), (0.15, 0.45)]), light, dark, width=lw
        )
        ImageDraw.Draw(img).line(
            [(0.5 * s, 0.15 * s), (0.5 * s, 0.85 * s)], fill=(250, 230, 120, 220), width=max(1, s // 12)
        )
    elif kind == "coin":
        img = _shape_fill(s, ellipse((0.12, 0.12, 0.88, 0.88)), (255, 230, 120), (190, 130, 20), width=lw)
        ImageDraw.Draw(img).ellipse([0.3 * s, 0.3 * s, 0.7 * s, 0.7 * s], outline=(150, 100, 10, 255), width=lw)
    elif kind == "heart":
        pts = [
            (
                0.5 + 0.4 * np.sin(a) ** 3,
                0.45 - 0.33 * np.cos(a) + 0.13 * np.cos(2 * a) + 0.05 * np.cos(3 * a) + 0.02 * np.cos(4 * a),
            )
            for a in np.linspace(0, 2 * np.pi, 40)
        ]
        img = _shape_fill(s, poly(pts), (255, 110, 120), (160, 20, 40), width=lw)
    elif kind == "key":
        img = _shape_fill(s, ellipse((0.1, 0.1, 0.5, 0.5)), (255, 225, 130), (170, 120, 20), width=lw)
        d = ImageDraw.Draw(img)
        d.line([(0.42 * s, 0.42 * s), (0.88 * s, 0.88 * s)], fill=(200, 150, 40, 255), width=max(2, s // 8))
        d.line([(0.7 * s, 0.7 * s), (0.8 * s, 0.6 * s)], fill=(200, 150, 40, 255), width=max(2, s // 10))
        d.ellipse([0.22 * s, 0.22 * s, 0.38 * s, 0.38 * s], fill=(0, 0, 0, 0))
    elif kind == "bomb":
        img = _shape_fill(s, ellipse((0.14, 0.26, 0.8, 0.92)), (110, 110, 120), (20, 20, 26), width=lw)
        d = ImageDraw.Draw(img)
        d.line([(0.62 * s, 0.32 * s), (0.8 * s, 0.12 * s)], fill=(160, 120, 80, 255), width=max(2, s // 12))
        d.ellipse([0.74 * s, 0.04 * s, 0.9 * s, 0.2 * s], fill=(255, 170, 40, 255))
    elif kind == "apple":
        img = _shape_fill(s, ellipse((0.14, 0.24, 0.86, 0.92)), (255, 90, 80), (150, 20, 20), width=lw)
        ImageDraw.Draw(img).line(
            [(0.5 * s, 0.28 * s), (0.58 * s, 0.08 * s)], fill=(90, 60, 30, 255), width=max(2, s // 14)
        )
        ImageDraw.Draw(img).ellipse([0.56 * s, 0.08 * s, 0.8 * s, 0.22 * s], fill=(80, 180, 70, 255))
    elif kind == "arrow":
        img = new(s, s)
        d = ImageDraw.Draw(img)
        d.line([(0.15 * s, 0.85 * s), (0.78 * s, 0.22 * s)], fill=(150, 110, 60, 255), width=max(2, s // 12))
        d.polygon(
            [(0.9 * s, 0.1 * s), (0.62 * s, 0.2 * s), (0.8 * s, 0.38 * s)],
            fill=(200, 205, 215, 255),
            outline=(20, 16, 14, 255),
        )
        d.polygon([(0.1 * s, 0.9 * s), (0.12 * s, 0.7 * s), (0.3 * s, 0.88 * s)], fill=(*light, 255))
    elif kind == "scroll":
        img = _shape_fill(
            s, poly([(0.2, 0.2), (0.8, 0.2), (0.8, 0.8), (0.2, 0.8)]), (250, 235, 200), (200, 170, 120), width=lw
        )
        d = ImageDraw.Draw(img)
        for k in range(3):
            y = (0.36 + 0.14 * k) * s
            d.line([(0.3 * s, y), (0.7 * s, y)], fill=(110, 80, 50, 220), width=max(1, s // 24))
    else:  # ammo
        img = new(s, s)
        d = ImageDraw.Draw(img)
        for k in range(3):
            x0 = (0.18 + 0.22 * k) * s
            d.rectangle(
                [x0, 0.38 * s, x0 + 0.16 * s, 0.88 * s], fill=(200, 160, 60, 255), outline=(20, 16, 14, 255), width=lw
            )
            d.polygon(
                [(x0, 0.38 * s), (x0 + 0.08 * s, 0.14 * s), (x0 + 0.16 * s, 0.38 * s)],
                fill=(190, 120, 70, 255),
                outline=(20, 16, 14, 255),
            )
    return img


def skull(size: int, color=(240, 240, 240, 255)) -> Image.Image:
    """A kill-feed skull glyph."""
    s = size
    img = new(s, s)
    d = ImageDraw.Draw(img)
    d.ellipse([0.15 * s, 0.08 * s, 0.85 * s, 0.72 * s], fill=color)
    d.rectangle([0.3 * s, 0.6 * s, 0.7 * s, 0.9 * s], fill=color)
    for x in (0.28, 0.55):
        d.ellipse([x * s, 0.32 * s, (x + 0.17) * s, 0.5 * s], fill=(0, 0, 0, 0))
    for x in (0.38, 0.5, 0.62):
        d.line([(x * s, 0.72 * s), (x * s, 0.9 * s)], fill=(0, 0, 0, 0), width=max(1, s // 16))
    return img


def rifle(width: int, height: int, color=(235, 235, 235, 255)) -> Image.Image:
    """A side-on rifle silhouette for kill feeds and weapon widgets."""
    w, h = width, height
    img = new(w, h)
    d = ImageDraw.Draw(img)
    d.rectangle([0.05 * w, 0.35 * h, 0.95 * w, 0.55 * h], fill=color)  # barrel and body
    d.polygon([(0.05 * w, 0.35 * h), (0.22 * w, 0.35 * h), (0.22 * w, 0.9 * h), (0.02 * w, 0.8 * h)], fill=color)
    d.rectangle([0.45 * w, 0.55 * h, 0.53 * w, 0.95 * h], fill=color)  # magazine
    d.rectangle([0.32 * w, 0.55 * h, 0.38 * w, 0.8 * h], fill=color)  # grip
    d.rectangle([0.55 * w, 0.2 * h, 0.72 * w, 0.35 * h], fill=color)  # sight
    return img
