"""Procedural status widgets: health/stamina bars with real bar geometry, team lists, ammo
counters, hotbars with separate item icons, ability cooldowns, vehicle gauges.

Status bars are drawn full; their structure records each bar's box and kind ("hp" or "stm")
so the renderer can animate the fill (Appendix E.1). Hotbars are drawn empty with their slot
boxes recorded, plus a set of item icons returned as separate assets (Appendix E.2).
"""

from __future__ import annotations

import math

import numpy as np
from PIL import ImageDraw

from g2w.hud.bootstrap.draw import gradient, hsv, new, panel, paste, shadow, text_image
from g2w.hud.bootstrap.icons import item_icon, rifle
from g2w.hud.bootstrap.words import KEYS, PLAYERS, WEAPONS

HP_FILLS = ((222, 40, 40), (60, 205, 80), (236, 70, 110))
STM_FILLS = ((245, 200, 40), (50, 160, 240), (120, 220, 90))


def _bar(img, box, color, segments: int = 0) -> None:
    """A full bar: dark track, bright gradient fill, highlight, optional segment ticks."""
    x1, y1, x2, y2 = box
    d = ImageDraw.Draw(img)
    d.rectangle([x1 - 1, y1 - 1, x2, y2], fill=(12, 12, 14, 235))
    light = tuple(min(255, int(c * 1.15) + 20) for c in color)
    fill = gradient(x2 - x1, y2 - y1, (*light, 255), (*(int(c * 0.75) for c in color), 255))
    img.alpha_composite(fill, (x1, y1))
    if y2 - y1 >= 6:
        d.line([(x1, y1 + 1), (x2 - 1, y1 + 1)], fill=(255, 255, 255, 90))
    for k in range(1, segments):
        x = x1 + (x2 - x1) * k / segments
        d.line([(x, y1), (x, y2 - 1)], fill=(10, 10, 10, 160), width=1)


def health(rng: np.random.Generator, pal: dict) -> list:
    w, h = int(rng.uniform(180, 300)), int(rng.uniform(34, 64))
    img = panel(w, h, pal, outline=(*pal["accent"], 200) if rng.random() < 0.5 else None)
    pad = max(4, h // 7)
    icon_w = h - 2 * pad if rng.random() < 0.6 else 0
    if icon_w:
        heart = text_image("+", int(icon_w * 1.1), (*HP_FILLS[0], 255), "sans")
        paste(img, heart, pad + (icon_w - heart.width) / 2, (h - heart.height) / 2)
    bar_h = int(h * rng.uniform(0.32, 0.5))
    box = [pad + icon_w + pad, (h - bar_h) // 2, w - pad, (h - bar_h) // 2 + bar_h]
    _bar(img, box, HP_FILLS[int(rng.integers(len(HP_FILLS)))], int(rng.choice([0, 0, 4, 5, 10])))
    value = text_image(
        f"{int(rng.integers(60, 200))}", max(9, int(bar_h * 0.8)), (255, 255, 255, 255), pal["family"], stroke=1
    )
    paste(img, value, box[2] - value.width - 3, (h - value.height) / 2)
    return [("health", img, {"bars": [{"kind": "hp", "box": box}]})]


def stamina(rng: np.random.Generator, pal: dict) -> list:
    w = int(rng.uniform(150, 240))
    h = int(max(w / 7.5, rng.uniform(14, 26)))
    img = panel(w, h, pal, radius=min(pal["radius"], h // 2))
    pad = max(2, h // 6)
    box = [pad, pad, w - pad, h - pad]
    _bar(img, box, STM_FILLS[int(rng.integers(len(STM_FILLS)))], int(rng.choice([0, 3, 8])))
    return [("stamina", img, {"bars": [{"kind": "stm", "box": box}]})]


def status_panel(rng: np.random.Generator, pal: dict) -> list:
    """Portrait, name and level, with health and stamina bars: a classic RPG player frame."""
    w, h = int(rng.uniform(220, 300)), int(rng.uniform(58, 78))
    img = panel(w, h, pal, outline=(*pal["accent"], 220))
    pad = 5
    s = h - 2 * pad
    portrait = gradient(s, s, (*hsv(rng.uniform(0, 1), 0.4, 0.8), 255), (*hsv(rng.uniform(0, 1), 0.5, 0.3), 255))
    pd = ImageDraw.Draw(portrait)
    pd.ellipse([s * 0.3, s * 0.15, s * 0.7, s * 0.55], fill=(235, 200, 170, 255))
    pd.ellipse([s * 0.15, s * 0.55, s * 0.85, s * 1.2], fill=(70, 80, 120, 255))
    pd.rectangle([0, 0, s - 1, s - 1], outline=(240, 240, 240, 255), width=2)
    paste(img, portrait, pad, pad)
    x0 = pad + s + 6
    name = text_image(
        f"{rng.choice(PLAYERS)}  Lv {int(rng.integers(1, 60))}",
        max(9, h // 6),
        (*pal["text"], 255),
        pal["family"],
        stroke=1,
    )
    paste(img, name, x0, pad - 2)
    bar_h = max(5, h // 6)
    hp_y = pad + name.height + 1
    hp = [x0, hp_y, w - pad, hp_y + bar_h]
    stm = [x0, hp_y + bar_h + 4, w - pad - int(0.25 * (w - pad - x0)), hp_y + 2 * bar_h + 4 - max(0, bar_h // 3)]
    _bar(img, hp, HP_FILLS[int(rng.integers(len(HP_FILLS)))])
    _bar(img, stm, STM_FILLS[int(rng.integers(len(STM_FILLS)))])
    return [("health", img, {"bars": [{"kind": "hp", "box": hp}, {"kind": "stm", "box": stm}]})]


def teammates(rng: np.random.Generator, pal: dict) -> list:
    rows = int(rng.integers(2, 5))
    row_h = int(rng.uniform(20, 28))
    w, h = int(rng.uniform(190, 270)), rows * row_h + 8
    img = panel(w, h, pal, alpha=int(pal["backing_alpha"] * 0.7))
    d = ImageDraw.Draw(img)
    for r in range(rows):
        y = 4 + r * row_h
        color = hsv(rng.uniform(0, 1), 0.7, 0.95)
        d.ellipse([6, y + 3, 6 + row_h - 8, y + row_h - 5], fill=(*color, 255), outline=(0, 0, 0, 255))
        name = text_image(str(rng.choice(PLAYERS)), int(row_h * 0.5), (*pal["text"], 255), pal["family"], stroke=1)
        paste(img, name, row_h + 4, y + 1)
        bx = [row_h + 4, y + row_h - 7, w - 8, y + row_h - 3]
        level = float(rng.uniform(0.15, 1.0))
        d.rectangle(bx, fill=(20, 20, 20, 220))
        d.rectangle(
            [bx[0], bx[1], bx[0] + (bx[2] - bx[0]) * level, bx[3]], fill=(*HP_FILLS[1 if level > 0.4 else 0], 255)
        )
    return [("roster", img, {})]


def ammo(rng: np.random.Generator, pal: dict) -> list:
    mag = int(rng.choice([6, 8, 12, 20, 30, 45]))
    text = text_image(f"{int(rng.integers(0, mag + 1))}", int(rng.uniform(26, 38)), (*pal["text"], 255), pal["family"])
    reserve = text_image(
        f"/ {int(rng.integers(0, 300))}", int(text.height * 0.55), (*pal["text"], 210), pal["family"], stroke=1
    )
    gun = rifle(int(rng.uniform(50, 80)), int(rng.uniform(16, 24)), (*pal["text"], 235)) if rng.random() < 0.6 else None
    name = text_image(str(rng.choice(WEAPONS)), 11, (*pal["accent"], 255), "condensed", stroke=1)
    w = text.width + reserve.width + (gun.width + 6 if gun else 0) + 14
    h = max(text.height, (gun.height if gun else 0)) + name.height + 6
    img = panel(w, h, pal, alpha=int(pal["backing_alpha"] * 0.6)) if rng.random() < 0.6 else new(w, h)
    x = 6
    if gun:
        paste(img, gun, x, name.height + (h - name.height - gun.height) / 2)
        x += gun.width + 6
    paste(img, text, x, name.height + 2)
    paste(img, reserve, x + text.width, name.height + 2 + text.height - reserve.height - 2)
    paste(img, name, w - name.width - 4, 1)
    return [("ammo_counter", shadow(img, radius=2, strength=0.5), {})]


def hotbar(rng: np.random.Generator, pal: dict) -> list:
    """An empty hotbar with slot geometry, and item icons as separate assets (role `icon`)."""
    n = int(rng.integers(5, 10))
    slot = int(rng.uniform(38, 54))
    gap, pad = int(rng.integers(2, 7)), int(rng.integers(4, 9))
    w, h = 2 * pad + n * slot + (n - 1) * gap, slot + 2 * pad
    img = panel(w, h, pal, alpha=int(pal["backing_alpha"] * 0.75))
    d = ImageDraw.Draw(img)
    slots = []
    for k in range(n):
        x = pad + k * (slot + gap)
        d.rounded_rectangle(
            [x, pad, x + slot - 1, pad + slot - 1],
            radius=min(6, pal["radius"]),
            fill=(*(int(c * 0.6) for c in pal["backing"]), 200),
            outline=(200, 200, 205, 230),
            width=2,
        )
        digit = text_image(str((k + 1) % 10), max(8, slot // 5), (230, 230, 230, 230), "sans", stroke=1, pad=0)
        paste(img, digit, x + 3, pad + 2)
        slots.append([x + 2, pad + 2, x + slot - 2, pad + slot - 2])
    icons = [("icon", item_icon(rng, int(rng.uniform(32, 56))), {}) for _ in range(int(rng.integers(5, 9)))]
    return [("weapon_bar", img, {"slots": slots})] + icons


def filled_hotbar(rng: np.random.Generator, pal: dict) -> list:
    """A hotbar captured with its items in place (no separation): a static inventory asset."""
    role, img, structure = hotbar(rng, pal)[0]
    for x1, y1, x2, y2 in structure["slots"]:
        if rng.random() < 0.75:
            s = int((x2 - x1) * 0.8)
            paste(img, item_icon(rng, s), x1 + (x2 - x1 - s) / 2, y1 + (y2 - y1 - s) / 2)
    return [(role, img, {})]


def abilities(rng: np.random.Generator, pal: dict) -> list:
    n = int(rng.choice([1, 1, 2, 3, 4]))
    s = int(rng.uniform(42, 62))
    gap = 6
    img = new(n * s + (n - 1) * gap, s + 14)
    for k in range(n):
        x = k * (s + gap)
        tile = gradient(s, s, (*hsv(rng.uniform(0, 1), 0.6, 0.9), 255), (*hsv(rng.uniform(0, 1), 0.8, 0.3), 255))
        td = ImageDraw.Draw(tile)
        glyph = text_image(str(rng.choice(["*", "#", "@", "%", "&", "+"])), int(s * 0.6), (255, 255, 255, 240), "sans")
        paste(tile, glyph, (s - glyph.width) / 2, (s - glyph.height) / 2)
        if rng.random() < 0.6:  # cooldown sweep
            frac = float(rng.uniform(0.2, 0.9))
            td.pieslice([-s * 0.3, -s * 0.3, s * 1.3, s * 1.3], -90, -90 + 360 * frac, fill=(0, 0, 0, 150))
            secs = text_image(str(int(rng.integers(1, 30))), int(s * 0.4), (255, 255, 255, 255), pal["family"])
            paste(tile, secs, (s - secs.width) / 2, (s - secs.height) / 2)
        td.rectangle([0, 0, s - 1, s - 1], outline=(*pal["accent"], 255), width=2)
        paste(img, tile, x, 0)
        key = text_image(str(rng.choice(KEYS[:6])), 12, (*pal["text"], 255), "sans", stroke=1)
        paste(img, key, x + (s - key.width) / 2, s)
    return [("ability", img, {})]


def gauge(rng: np.random.Generator, pal: dict) -> list:
    """A speedometer: tick arc, needle, digital speed and gear."""
    s = int(rng.uniform(120, 170))
    img = new(s, int(s * 0.8))
    d = ImageDraw.Draw(img)
    c, r = (s / 2, s / 2), s / 2 - 4
    d.pieslice([c[0] - r, c[1] - r, c[0] + r, c[1] + r], 150, 390, fill=(*pal["backing"], pal["backing_alpha"]))
    for k in range(13):
        a = math.radians(150 + 240 * k / 12)
        inner = r * (0.78 if k % 2 == 0 else 0.86)
        col = (*pal["danger"], 255) if k >= 10 else (*pal["text"], 255)
        d.line(
            [
                (c[0] + inner * math.cos(a), c[1] + inner * math.sin(a)),
                (c[0] + r * 0.96 * math.cos(a), c[1] + r * 0.96 * math.sin(a)),
            ],
            fill=col,
            width=2,
        )
    d.arc([c[0] - r, c[1] - r, c[0] + r, c[1] + r], 150, 390, fill=(*pal["accent"], 255), width=3)
    v = float(rng.uniform(0.05, 0.95))
    a = math.radians(150 + 240 * v)
    d.line([c, (c[0] + r * 0.8 * math.cos(a), c[1] + r * 0.8 * math.sin(a))], fill=(*pal["danger"], 255), width=3)
    d.ellipse([c[0] - 5, c[1] - 5, c[0] + 5, c[1] + 5], fill=(230, 230, 230, 255))
    speed = text_image(str(int(v * 240)), int(s * 0.16), (*pal["text"], 255), pal["family"])
    paste(img, speed, c[0] - speed.width / 2, c[1] + r * 0.2)
    unit = text_image(str(rng.choice(["km/h", "mph"])), int(s * 0.08), (*pal["text"], 220), "condensed", stroke=1)
    paste(img, unit, c[0] - unit.width / 2, c[1] + r * 0.2 + speed.height)
    gear = text_image(
        str(rng.choice(["N", "1", "2", "3", "4", "5", "R", "D"])), int(s * 0.12), (*pal["accent"], 255), "mono"
    )
    paste(img, gear, c[0] + r * 0.45, c[1] - r * 0.15)
    return [("gauge", img, {})]
