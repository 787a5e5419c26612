"""Procedural spatial widgets: minimaps, compass strips, crosshairs, world markers.

Each maker returns a list of (role, Pillow RGBA image, structure) drawn at the 1280x720
reference scale, sized inside Table 8's limits for its role.
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from g2w.hud.bootstrap.draw import glow, new, paste, shadow, text_image
from g2w.hud.bootstrap.words import PLACES
from g2w.sample_data.textures import colorize, tileable_noise

TERRAINS = (
    ((30, 70, 35), (150, 170, 105)),
    ((40, 50, 70), (120, 160, 200)),
    ((70, 60, 40), (200, 180, 130)),
    ((10, 30, 40), (60, 200, 190)),
    ((35, 35, 40), (170, 170, 180)),
)


def minimap(rng: np.random.Generator, pal: dict) -> list:
    w = int(rng.uniform(140, 215))
    h = int(w * rng.uniform(0.8, 1.15)) if rng.random() < 0.4 else w
    round_map = rng.random() < 0.55
    dark, light = TERRAINS[int(rng.integers(len(TERRAINS)))]
    terrain = colorize(tileable_noise(rng, h, w, int(rng.integers(3, 7)), 3), dark, light)
    water = tileable_noise(rng, h, w, 3, 2) < rng.uniform(0.15, 0.3)
    terrain[water] = (40, 90, 160)
    img = Image.fromarray(np.dstack([terrain, np.full((h, w), int(rng.uniform(200, 240)), np.uint8)]), "RGBA")
    d = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(2, 5))):  # roads
        pts = [(float(rng.uniform(0, w)), float(rng.uniform(0, h))) for _ in range(3)]
        d.line(pts, fill=(225, 215, 180, 255), width=int(rng.integers(2, 5)), joint="curve")
    for _ in range(int(rng.integers(3, 8))):  # markers: enemies, quests, loot
        x, y = float(rng.uniform(0.15, 0.85) * w), float(rng.uniform(0.15, 0.85) * h)
        r = int(rng.integers(3, 6))
        color = [(230, 50, 50, 255), (250, 210, 60, 255), (80, 200, 255, 255)][int(rng.integers(3))]
        if rng.random() < 0.5:
            d.ellipse([x - r, y - r, x + r, y + r], fill=color, outline=(0, 0, 0, 255))
        else:
            d.polygon([(x, y - r - 2), (x + r, y + r), (x - r, y + r)], fill=color, outline=(0, 0, 0, 255))
    cx, cy, a = w / 2, h / 2, max(6, w // 18)
    d.polygon(
        [(cx, cy - a), (cx + a * 0.7, cy + a * 0.8), (cx, cy + a * 0.35), (cx - a * 0.7, cy + a * 0.8)],
        fill=(255, 255, 255, 255),
        outline=(0, 0, 0, 255),
    )
    shape = new(w, h)
    sd = ImageDraw.Draw(shape)
    ring = max(3, w // 30)
    if round_map:
        sd.ellipse([0, 0, w - 1, h - 1], fill=(255, 255, 255, 255))
    else:
        sd.rounded_rectangle([0, 0, w - 1, h - 1], radius=int(rng.integers(4, 18)), fill=(255, 255, 255, 255))
    out = new(w, h)
    out.paste(img, (0, 0), shape.getchannel("A"))
    od = ImageDraw.Draw(out)
    frame_color = (*pal["accent"], 255) if rng.random() < 0.5 else (220, 220, 225, 255)
    if round_map:
        od.ellipse([1, 1, w - 2, h - 2], outline=frame_color, width=ring)
    else:
        od.rounded_rectangle([1, 1, w - 2, h - 2], radius=8, outline=frame_color, width=ring)
    north = text_image("N", max(10, w // 11), (255, 255, 255, 255), pal["family"])
    paste(out, north, w / 2 - north.width / 2, ring)
    return [("minimap", out, {})]


def compass(rng: np.random.Generator, pal: dict) -> list:
    w, h = int(rng.uniform(300, 480)), int(rng.uniform(28, 44))
    img = new(w, h)
    backing = np.zeros((h, w, 4), np.uint8)
    backing[..., :3] = pal["backing"]
    fade = np.minimum(1.0, np.minimum(np.arange(w), np.arange(w)[::-1]) / (0.2 * w))
    backing[..., 3] = (pal["backing_alpha"] * 0.8 * fade[None, :]).astype(np.uint8)
    img.alpha_composite(Image.fromarray(backing, "RGBA"))
    d = ImageDraw.Draw(img)
    heading = float(rng.uniform(0, 360))
    span = float(rng.uniform(120, 200))  # degrees across the strip
    points = {0: "N", 45: "NE", 90: "E", 135: "SE", 180: "S", 225: "SW", 270: "W", 315: "NW"}
    for deg in range(0, 360, 5):
        off = (deg - heading + 540) % 360 - 180
        if abs(off) > span / 2:
            continue
        x = w / 2 + off / span * w
        alpha = int(255 * fade[min(w - 1, max(0, int(x)))])
        if deg in points:
            label = text_image(points[deg], max(9, int(h * 0.45)), (*pal["text"], alpha), pal["family"], stroke=1)
            paste(img, label, x - label.width / 2, h * 0.08)
        else:
            tall = 0.45 if deg % 15 == 0 else 0.25
            d.line([(x, h * (1 - tall) - 2), (x, h - 3)], fill=(*pal["text"], alpha), width=1)
            if deg % 30 == 0 and rng.random() < 0.8:
                num = text_image(
                    str(deg), max(7, int(h * 0.28)), (*pal["text"], int(alpha * 0.8)), "condensed", stroke=1
                )
                paste(img, num, x - num.width / 2, h * 0.1)
    d.polygon([(w / 2 - 5, h - 1), (w / 2 + 5, h - 1), (w / 2, h - 8)], fill=(*pal["accent"], 255))
    return [("compass_bar", img, {})]


def crosshair(rng: np.random.Generator, pal: dict) -> list:
    s = int(rng.uniform(20, 56))
    style = int(rng.integers(6))
    color = (255, 255, 255, 255) if rng.random() < 0.5 else (*pal["accent"], 255)
    th = max(2, s // 14)
    img = new(s, s)
    d = ImageDraw.Draw(img)
    c, gap = s / 2, s * rng.uniform(0.12, 0.25)
    for col, width in (((0, 0, 0, 180), th + 2), (color, th)):
        if style in (0, 1):  # cross with a gap, optionally with a dot
            d.line([(c, 1), (c, c - gap)], fill=col, width=width)
            d.line([(c, c + gap), (c, s - 2)], fill=col, width=width)
            d.line([(1, c), (c - gap, c)], fill=col, width=width)
            d.line([(c + gap, c), (s - 2, c)], fill=col, width=width)
        elif style == 2:  # circle
            d.ellipse([2, 2, s - 3, s - 3], outline=col, width=width)
        elif style == 3:  # T
            d.line([(1, c), (c - gap, c)], fill=col, width=width)
            d.line([(c + gap, c), (s - 2, c)], fill=col, width=width)
            d.line([(c, c + gap), (c, s - 2)], fill=col, width=width)
        elif style == 4:  # chevron
            d.line([(c - s * 0.35, c + s * 0.2), (c, c - s * 0.1), (c + s * 0.35, c + s * 0.2)], fill=col, width=width)
        else:  # corner brackets
            k = s * 0.3
            for sx, sy in ((1, 1), (s - 2, 1), (1, s - 2), (s - 2, s - 2)):
                dx, dy = (k if sx < c else -k), (k if sy < c else -k)
                d.line([(sx + dx, sy), (sx, sy), (sx, sy + dy)], fill=col, width=width)
    if style in (1, 2, 4, 5):
        r = max(1.5, s / 18)
        d.ellipse([c - r, c - r, c + r, c + r], fill=color, outline=(0, 0, 0, 200))
    return [("crosshair", img, {})]


def world_marker(rng: np.random.Generator, pal: dict) -> list:
    """A quest/waypoint marker with a distance or place name under it."""
    s = int(rng.uniform(26, 48))
    icon = new(s, s)
    d = ImageDraw.Draw(icon)
    color = (*[pal["accent"], pal["warn"], pal["danger"], pal["good"]][int(rng.integers(4))], 255)
    shape = int(rng.integers(3))
    if shape == 0:
        d.polygon([(s / 2, 1), (s - 2, s / 2), (s / 2, s - 2), (1, s / 2)], fill=color, outline=(0, 0, 0, 255), width=2)
    elif shape == 1:
        d.ellipse([3, 1, s - 4, s * 0.7], fill=color, outline=(0, 0, 0, 255), width=2)
        d.polygon([(s * 0.3, s * 0.55), (s * 0.7, s * 0.55), (s / 2, s - 1)], fill=color)
    else:
        d.polygon([(s / 2, s - 1), (1, 2), (s - 2, 2)], fill=color, outline=(0, 0, 0, 255), width=2)
    icon = glow(icon, color[:3], radius=3, strength=0.6)
    kind = int(rng.integers(3))
    text = f"{int(rng.integers(8, 950))} m" if kind == 0 else (str(rng.choice(PLACES)) if kind == 1 else "!")
    label = shadow(text_image(text, int(rng.uniform(12, 18)), (*pal["text"], 255), pal["family"]), radius=2)
    w = max(icon.width, label.width)
    out = new(w, icon.height + label.height - 4)
    paste(out, icon, (w - icon.width) / 2, 0)
    paste(out, label, (w - label.width) / 2, icon.height - 4)
    return [("objective_marker", out, {})]
