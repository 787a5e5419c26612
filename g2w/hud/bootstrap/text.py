"""Procedural text-led widgets: objectives, match timers and scores, key prompts, notices and
kill feeds, subtitles, chat logs, menus, debug readouts, watermarks, stream overlays, misc HUD.
"""

from __future__ import annotations

import numpy as np
from PIL import ImageDraw

from g2w.hud.bootstrap.draw import glow, gradient, hsv, new, panel, paste, shadow, text_image
from g2w.hud.bootstrap.icons import item_icon, rifle, skull
from g2w.hud.bootstrap.words import (
    ACTIONS,
    BRANDS,
    CHANNELS,
    CHAT,
    KEYS,
    MENU_ITEMS,
    NOTICES,
    OBJECTIVES,
    PLAYERS,
    SPEAKERS,
    SUBTITLES,
)


def _boxed(lines: list, pal: dict, pad: int = 8, alpha: int | None = None, accent_bar: bool = False, gap: int = 2):
    """Stack text images vertically on a backing panel."""
    w = max(im.width for im in lines) + 2 * pad + (5 if accent_bar else 0)
    h = sum(im.height for im in lines) + 2 * pad + gap * (len(lines) - 1)
    img = panel(w, h, pal, alpha=alpha)
    if accent_bar:
        ImageDraw.Draw(img).rectangle([0, 0, 3, h - 1], fill=(*pal["accent"], 255))
    y = pad
    for im in lines:
        paste(img, im, pad + (5 if accent_bar else 0), y)
        y += im.height + gap
    return img


def objective(rng: np.random.Generator, pal: dict) -> list:
    title = text_image(
        str(rng.choice(["OBJECTIVE", "QUEST", "MISSION", "TASK"])), 12, (*pal["accent"], 255), pal["family"], stroke=1
    )
    goal = str(rng.choice(OBJECTIVES))
    if rng.random() < 0.5:
        goal += f"  {int(rng.integers(0, 5))}/{int(rng.integers(5, 10))}"
    body = text_image(goal, int(rng.uniform(15, 20)), (*pal["text"], 255), pal["family"], stroke=1)
    return [("panel", _boxed([title, body], pal, accent_bar=True), {})]


def match(rng: np.random.Generator, pal: dict) -> list:
    kind = int(rng.integers(3))
    if kind == 0:
        secs = int(rng.integers(0, 600))
        img = shadow(
            text_image(f"{secs // 60:02d}:{secs % 60:02d}", int(rng.uniform(22, 32)), (*pal["text"], 255), "mono")
        )
    elif kind == 1:
        a, b = (text_image(str(int(rng.integers(0, 16))), 26, (255, 255, 255, 255), pal["family"]) for _ in range(2))
        w = a.width + b.width + 70
        img = new(w, a.height + 8)
        ImageDraw.Draw(img).rectangle([0, 0, w // 2 - 1, a.height + 7], fill=(40, 90, 220, 210))
        ImageDraw.Draw(img).rectangle([w // 2, 0, w - 1, a.height + 7], fill=(210, 50, 50, 210))
        paste(img, a, w // 4 - a.width / 2, 4)
        paste(img, b, 3 * w // 4 - b.width / 2, 4)
    else:
        top = text_image(f"#{int(rng.integers(1, 100))}", 26, (*pal["warn"], 255), pal["family"])
        sub = text_image(f"{int(rng.integers(2, 99))} ALIVE", 12, (*pal["text"], 255), "condensed", stroke=1)
        img = _boxed([top, sub], pal, pad=5)
    return [("counter", img, {})]


def prompt(rng: np.random.Generator, pal: dict) -> list:
    key = str(rng.choice(KEYS))
    cap = text_image(key, 16, (20, 20, 20, 255), "sans", stroke=0, pad=3)
    s = max(cap.height + 6, cap.width + 10)
    keycap = new(s, s)
    ImageDraw.Draw(keycap).rounded_rectangle(
        [0, 0, s - 1, s - 1], radius=5, fill=(240, 240, 240, 255), outline=(90, 90, 90, 255), width=2
    )
    paste(keycap, cap, (s - cap.width) / 2, (s - cap.height) / 2)
    label = text_image(str(rng.choice(ACTIONS)), int(rng.uniform(15, 20)), (*pal["text"], 255), pal["family"])
    w, h = s + label.width + 18, max(s, label.height) + 10
    img = panel(w, h, pal, alpha=int(pal["backing_alpha"] * 0.8)) if rng.random() < 0.7 else new(w, h)
    paste(img, keycap, 5, (h - s) / 2)
    paste(img, label, s + 12, (h - label.height) / 2)
    return [("prompt", img, {})]


def notice(rng: np.random.Generator, pal: dict) -> list:
    if rng.random() < 0.45:  # kill feed line: killer [weapon] victim
        a = text_image(str(rng.choice(PLAYERS)), 15, (*pal["accent"], 255), pal["family"], stroke=1)
        b = text_image(str(rng.choice(PLAYERS)), 15, (*pal["danger"], 255), pal["family"], stroke=1)
        mid = rifle(46, 16) if rng.random() < 0.6 else skull(18)
        w, h = a.width + mid.width + b.width + 24, max(a.height, mid.height) + 8
        img = panel(w, h, pal, radius=2, alpha=int(pal["backing_alpha"] * 0.7))
        paste(img, a, 6, (h - a.height) / 2)
        paste(img, mid, a.width + 12, (h - mid.height) / 2)
        paste(img, b, a.width + mid.width + 18, (h - b.height) / 2)
        return [("kill_feed", img, {})]
    title = text_image(str(rng.choice(NOTICES)), int(rng.uniform(16, 22)), (*pal["text"], 255), pal["family"])
    icon = item_icon(rng, title.height + 8) if rng.random() < 0.6 else None
    w = title.width + (icon.width + 8 if icon else 0) + 20
    h = max(title.height, icon.height if icon else 0) + 14
    img = panel(w, h, pal, outline=(*pal["accent"], 230), outline_width=2)
    x = 10
    if icon:
        paste(img, icon, x, (h - icon.height) / 2)
        x += icon.width + 8
    paste(img, title, x, (h - title.height) / 2)
    return [("toast", glow(img, pal["accent"], radius=3, strength=0.35), {})]


def subtitle(rng: np.random.Generator, pal: dict) -> list:
    line = str(rng.choice(SUBTITLES))
    if rng.random() < 0.5:
        line = f"{rng.choice(SPEAKERS)}: {line}"
    size = int(rng.uniform(18, 26))
    color = (255, 255, 255, 255) if rng.random() < 0.7 else (255, 235, 120, 255)
    text = text_image(line, size, color, str(rng.choice(["sans", "serif", "condensed"])), bold=False, stroke=2)
    if rng.random() < 0.5:
        img = panel(text.width + 20, text.height + 10, pal, radius=3, alpha=150)
        paste(img, text, 10, 5)
        return [("caption", img, {})]
    return [("caption", shadow(text), {})]


def chat(rng: np.random.Generator, pal: dict) -> list:
    lines = []
    for _ in range(int(rng.integers(3, 7))):
        name = str(rng.choice(PLAYERS))
        color = hsv(rng.uniform(0, 1), 0.6, 1.0)
        n = text_image(f"[{name}]", 13, (*color, 255), "sans", stroke=1)
        m = text_image(str(rng.choice(CHAT)), 13, (240, 240, 240, 255), "sans", bold=False, stroke=1)
        row = new(n.width + m.width + 4, max(n.height, m.height))
        paste(row, n, 0, 0)
        paste(row, m, n.width + 4, 0)
        lines.append(row)
    return [("chat_log", _boxed(lines, pal, pad=6, alpha=int(pal["backing_alpha"] * 0.55), gap=1), {})]


def menu(rng: np.random.Generator, pal: dict) -> list:
    if rng.random() < 0.5:  # a horizontal control-hint bar
        parts = [
            text_image(f"[{k}] {a}", 13, (*pal["text"], 255), "sans", stroke=1)
            for k, a in zip(rng.choice(KEYS, 3, replace=False), rng.choice(MENU_ITEMS, 3, replace=False))
        ]
        w = sum(p.width for p in parts) + 16 * len(parts) + 8
        h = max(p.height for p in parts) + 10
        img = panel(w, h, pal, alpha=int(pal["backing_alpha"] * 0.7))
        x = 8
        for p in parts:
            paste(img, p, x, 5)
            x += p.width + 16
        return [("hint_bar", img, {})]
    items = [
        text_image(str(m), 15, (*pal["text"], 255), pal["family"], stroke=1)
        for m in rng.choice(MENU_ITEMS, int(rng.integers(3, 6)), replace=False)
    ]
    return [("menu", _boxed(items, pal, pad=10, accent_bar=True, gap=4), {})]


def debug(rng: np.random.Generator, pal: dict) -> list:
    fps = int(rng.integers(24, 240))
    lines = [
        f"FPS {fps}  {1000 / fps:.1f} ms",
        f"PING {int(rng.integers(5, 180))} ms",
        f"CPU {int(rng.integers(10, 99))}%  GPU {int(rng.integers(10, 99))}%",
        f"build 1.{int(rng.integers(0, 30))}.{int(rng.integers(0, 999))}",
    ]
    k = int(rng.integers(1, 5))
    color = (120, 255, 120, 255) if rng.random() < 0.5 else (255, 255, 255, 235)
    ims = [text_image(s, 12, color, "mono", bold=False, stroke=1) for s in lines[:k]]
    if rng.random() < 0.5:
        return [("readout", _boxed(ims, pal, pad=4, alpha=120, gap=0), {})]
    h = sum(im.height for im in ims)
    img = new(max(im.width for im in ims), h)
    y = 0
    for im in ims:
        paste(img, im, 0, y)
        y += im.height
    return [("readout", img, {})]


def watermark(rng: np.random.Generator, pal: dict) -> list:
    alpha = int(rng.uniform(90, 180))
    if rng.random() < 0.35:  # recording indicator
        dot = new(16, 16)
        ImageDraw.Draw(dot).ellipse([1, 1, 14, 14], fill=(230, 30, 30, alpha + 60))
        text = text_image("REC", 16, (255, 255, 255, alpha), "sans", stroke=1, stroke_fill=(0, 0, 0, alpha // 2))
        img = new(dot.width + text.width + 6, max(dot.height, text.height))
        paste(img, dot, 0, (img.height - 16) / 2)
        paste(img, text, 22, (img.height - text.height) / 2)
        return [("mark", img, {})]
    name = str(rng.choice(CHANNELS if rng.random() < 0.6 else BRANDS))
    text = text_image(
        name,
        int(rng.uniform(16, 30)),
        (255, 255, 255, alpha),
        str(rng.choice(["sans", "serif", "condensed"])),
        stroke=1,
        stroke_fill=(0, 0, 0, alpha // 2),
    )
    if rng.random() < 0.5:  # logo mark beside the name
        s = text.height
        logo = new(s, s)
        ImageDraw.Draw(logo).regular_polygon(
            (s / 2, s / 2, s / 2 - 1),
            int(rng.integers(3, 7)),
            fill=(*pal["accent"], alpha),
            outline=(255, 255, 255, alpha),
        )
        img = new(s + text.width + 6, s)
        paste(img, logo, 0, 0)
        paste(img, text, s + 6, 0)
        return [("logo", img, {})]
    return [("mark", text, {})]


def stream_overlay(rng: np.random.Generator, pal: dict) -> list:
    if rng.random() < 0.5:  # facecam frame with a silhouette
        w = int(rng.uniform(180, 260))
        h = int(w * 0.75)
        img = gradient(w, h, (*hsv(rng.uniform(0, 1), 0.3, 0.45), 255), (*hsv(rng.uniform(0, 1), 0.4, 0.2), 255))
        d = ImageDraw.Draw(img)
        d.ellipse([w * 0.36, h * 0.18, w * 0.64, h * 0.58], fill=(205, 170, 140, 255))
        d.ellipse([w * 0.22, h * 0.6, w * 0.78, h * 1.3], fill=(50, 60, 90, 255))
        d.rectangle([0, 0, w - 1, h - 1], outline=(*pal["accent"], 255), width=4)
        tag = text_image(str(rng.choice(CHANNELS)), 13, (255, 255, 255, 255), "sans", stroke=1)
        d.rectangle([0, h - tag.height - 6, tag.width + 10, h - 1], fill=(*pal["accent"], 230))
        paste(img, tag, 5, h - tag.height - 3)
        return [("facecam", img, {})]
    who = text_image(str(rng.choice(PLAYERS)), 16, (*pal["accent"], 255), pal["family"])
    what = text_image(
        str(rng.choice(["donated $5.00", "just followed!", "subscribed for 6 months", "raided with 42 viewers"])),
        14,
        (255, 255, 255, 255),
        "sans",
        stroke=1,
    )
    return [("alert", glow(_boxed([who, what], pal, pad=8, accent_bar=True), pal["accent"], 4, 0.5), {})]


def other(rng: np.random.Generator, pal: dict) -> list:
    kind = int(rng.integers(3))
    if kind == 0:  # decorative corner brackets around nothing
        w, h = int(rng.uniform(80, 200)), int(rng.uniform(40, 90))
        img = new(w, h)
        d = ImageDraw.Draw(img)
        k = min(w, h) // 3
        for x, y, dx, dy in ((1, 1, k, k), (w - 2, 1, -k, k), (1, h - 2, k, -k), (w - 2, h - 2, -k, -k)):
            d.line([(x + dx, y), (x, y), (x, y + dy)], fill=(*pal["accent"], 255), width=3)
        return [("frame", img, {})]
    if kind == 1:  # a resource counter: icon and number
        icon = item_icon(rng, 26)
        num = text_image(f"{int(rng.integers(0, 99999)):,}", 18, (*pal["text"], 255), pal["family"])
        img = new(icon.width + num.width + 8, max(icon.height, num.height))
        paste(img, icon, 0, (img.height - icon.height) / 2)
        paste(img, num, icon.width + 6, (img.height - num.height) / 2)
        return [("counter", shadow(img, radius=2), {})]
    dots = int(rng.integers(3, 7))  # pagination / charge pips
    img = new(dots * 18, 16)
    d = ImageDraw.Draw(img)
    on = int(rng.integers(1, dots + 1))
    for k in range(dots):
        d.ellipse(
            [k * 18 + 2, 2, k * 18 + 14, 14],
            fill=(*pal["accent"], 255) if k < on else (60, 60, 60, 200),
            outline=(0, 0, 0, 200),
        )
    return [("pips", img, {})]
