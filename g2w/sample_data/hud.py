"""A procedural HUD baked into some sample videos, so curation's UI screen has something to find.

Elements carry taxonomy labels (minimap, status bars, crosshair, ammo, match timer, watermark).
Like real HUDs they are mostly static screen-space pixels with small live parts: the minimap
scrolls inside a fixed ring, bars change level, counters tick. Each element is an RGBA patch at
a fixed place; its ground-truth box is the union of its alpha-support over the video.
"""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.sample_data.textures import colorize, tileable_noise

ALPHA_MIN = 8  # alpha at or above which a pixel counts as UI (the paper's threshold)


class _Element:
    """One HUD widget: a label, a top-left position and a patch renderer of time."""

    def __init__(self, label: str, x: int, y: int, render, dynamic: bool):
        self.label, self.x, self.y, self.render, self.dynamic = label, x, y, render, dynamic


def _text_patch(text: str, size: int, color=(255, 255, 255, 255), outline=(0, 0, 0, 200)) -> np.ndarray:
    f = font(size, bold=True)
    x0, y0, x1, y1 = f.getbbox(text, stroke_width=2)
    img = Image.new("RGBA", (x1 - x0 + 4, y1 - y0 + 4), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((2 - x0, 2 - y0), text, font=f, fill=color, stroke_width=2, stroke_fill=outline)
    return np.asarray(img)


class BakedHud:
    def __init__(self, rng: np.random.Generator, width: int, height: int):
        self.width, self.height = width, height
        self.u = u = min(width, height)
        self.margin = m = int(0.035 * u)
        self.rng = rng
        self.elements: list[_Element] = []
        self._cache: dict = {}
        r = int(0.12 * u)
        self._radar_terrain = colorize(tileable_noise(rng, 4 * r, 4 * r, 4, 3), (40, 70, 40), (150, 170, 110))
        self.elements.append(_Element("map_radar", width - m - 2 * r, m, self._radar, True))
        self.elements.append(_Element("player_status", m, height - m - int(0.11 * u), self._status, True))
        optional = [
            ("crosshair", self._crosshair_at),
            ("weapon_ammo", self._ammo_at),
            ("match_status", self._timer_at),
            ("watermark", self._watermark_at),
        ]
        for _label, place in optional:
            if rng.random() < 0.6:
                self.elements.append(place())

    # --- element placement -------------------------------------------------------------
    def _crosshair_at(self) -> _Element:
        s = int(0.05 * self.u) | 1
        return _Element(
            "crosshair",
            self.width // 2 - s // 2,
            self.height // 2 - s // 2,
            lambda t: self._cached(("crosshair",), lambda: self._crosshair(s)),
            False,
        )

    def _ammo_at(self) -> _Element:
        size = int(0.06 * self.u)
        w = _text_patch("888 / 888", size).shape[1]
        return _Element(
            "weapon_ammo",
            self.width - self.margin - w,
            self.height - self.margin - int(1.4 * size),
            lambda t: self._ammo(t, size),
            True,
        )

    def _timer_at(self) -> _Element:
        size = int(0.05 * self.u)
        w = _text_patch("88:88", size).shape[1]
        return _Element("match_status", self.width // 2 - w // 2, self.margin, lambda t: self._timer(t, size), True)

    def _watermark_at(self) -> _Element:
        size = int(0.035 * self.u)
        return _Element(
            "watermark",
            self.margin,
            self.margin,
            lambda t: self._cached(
                ("watermark",), lambda: _text_patch("G2W.TV", size, color=(255, 255, 255, 120), outline=(0, 0, 0, 60))
            ),
            False,
        )

    # --- element drawing ---------------------------------------------------------------
    def _cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def _radar(self, t: float) -> np.ndarray:
        r = self._radar_terrain.shape[0] // 4
        ox, oy = int(8 * t) % (2 * r), int(5 * t) % (2 * r)
        patch = np.zeros((2 * r, 2 * r, 4), np.uint8)
        patch[..., :3] = self._radar_terrain[oy : oy + 2 * r, ox : ox + 2 * r]
        disc = np.zeros((2 * r, 2 * r), np.uint8)
        cv2.circle(disc, (r, r), r - 2, 230, -1, cv2.LINE_AA)
        patch[..., 3] = disc
        for k in range(2):  # enemy blips drifting on their own
            bx = int(r + 0.6 * r * np.cos(0.4 * t + 2 * k))
            by = int(r + 0.6 * r * np.sin(0.3 * t + 2 * k))
            cv2.circle(patch, (bx, by), max(2, r // 14), (230, 40, 40, 255), -1, cv2.LINE_AA)
        arrow = np.array([[r, r - r // 7], [r - r // 10, r + r // 10], [r + r // 10, r + r // 10]], np.int32)
        cv2.fillPoly(patch, [arrow], (255, 255, 255, 255), cv2.LINE_AA)
        cv2.circle(patch, (r, r), r - 2, (230, 230, 230, 255), max(2, r // 25), cv2.LINE_AA)
        return patch

    def _status(self, t: float) -> np.ndarray:
        u = self.u
        health = 1.0 - 0.15 * (int(t / 3.0) % 5)  # steps down every 3 s, then refills
        stamina = 0.5 + 0.5 * abs(np.sin(0.5 * t))
        key = ("status", round(health, 2), round(stamina, 2))
        return self._cached(key, lambda: self._draw_status(u, health, stamina))

    @staticmethod
    def _draw_status(u: int, health: float, stamina: float) -> np.ndarray:
        w, h = int(0.42 * u), int(0.11 * u)
        patch = np.zeros((h, w, 4), np.uint8)
        cv2.rectangle(patch, (0, 0), (w - 1, h - 1), (10, 10, 20, 150), -1)
        icon = h - 8
        cv2.rectangle(patch, (4, 4), (4 + icon, 4 + icon), (200, 180, 150, 255), -1)
        cv2.circle(patch, (4 + icon // 2, 4 + icon // 2), icon // 3, (90, 60, 40, 255), -1, cv2.LINE_AA)
        x0, x1 = icon + 12, w - 8
        for row, (level, color) in enumerate(((health, (220, 40, 40, 255)), (stamina, (230, 200, 40, 255)))):
            y0 = 6 + row * (h - 12) // 2
            y1 = y0 + (h - 12) // 2 - 4
            cv2.rectangle(patch, (x0, y0), (x1, y1), (40, 40, 40, 230), -1)
            cv2.rectangle(patch, (x0, y0), (x0 + int((x1 - x0) * level), y1), color, -1)
            cv2.rectangle(patch, (x0, y0), (x1, y1), (240, 240, 240, 255), 1)
        return patch

    @staticmethod
    def _crosshair(s: int) -> np.ndarray:
        patch = np.zeros((s, s, 4), np.uint8)
        c, gap, th = s // 2, s // 6, max(1, s // 16)
        for color, width in (((0, 0, 0, 180), th + 2), ((255, 255, 255, 255), th)):
            cv2.line(patch, (c, 0), (c, c - gap), color, width)
            cv2.line(patch, (c, c + gap), (c, s - 1), color, width)
            cv2.line(patch, (0, c), (c - gap, c), color, width)
            cv2.line(patch, (c + gap, c), (s - 1, c), color, width)
        return patch

    def _ammo(self, t: float, size: int) -> np.ndarray:
        clip = 30 - int(t * 2) % 31
        reserve = 120 - 30 * (int(t * 2) // 31 % 4)
        text = f"{clip:3d} / {reserve:3d}"
        return self._cached(("ammo", text), lambda: _text_patch(text, size))

    def _timer(self, t: float, size: int) -> np.ndarray:
        left = max(0, 300 - int(t))
        text = f"{left // 60:02d}:{left % 60:02d}"
        return self._cached(("timer", text), lambda: _text_patch(text, size, color=(255, 235, 120, 255)))

    # --- compositing and ground truth --------------------------------------------------
    def _visible(self, el: _Element, patch: np.ndarray) -> tuple[np.ndarray, slice, slice]:
        """The part of a patch inside the frame, and where it lands (elements may overhang)."""
        h, w = patch.shape[:2]
        x0, y0 = max(0, el.x), max(0, el.y)
        x1, y1 = min(self.width, el.x + w), min(self.height, el.y + h)
        return patch[y0 - el.y : y1 - el.y, x0 - el.x : x1 - el.x], slice(y0, y1), slice(x0, x1)

    def draw(self, frame: np.ndarray, t: float) -> None:
        """Alpha-blend every element onto the frame in place."""
        for el in self.elements:
            patch, rows, cols = self._visible(el, el.render(t))
            region = frame[rows, cols]
            alpha = patch[..., 3:4].astype(np.float32) / 255
            region[:] = (patch[..., :3] * alpha + region * (1 - alpha)).astype(np.uint8)

    def boxes(self, times: np.ndarray) -> list[dict]:
        """Each element's half-open [x1, y1, x2, y2] box: alpha-support union over `times`."""
        out = []
        for el in self.elements:
            x1 = y1 = 1 << 30
            x2 = y2 = -1
            for t in times:
                patch, rows, cols = self._visible(el, el.render(float(t)))
                ys, xs = np.nonzero(patch[..., 3] >= ALPHA_MIN)
                if len(xs):
                    x1, y1 = min(x1, cols.start + xs.min()), min(y1, rows.start + ys.min())
                    x2, y2 = max(x2, cols.start + xs.max() + 1), max(y2, rows.start + ys.max() + 1)
            if x2 > x1:
                out.append({"label": el.label, "box": [int(x1), int(y1), int(x2), int(y2)], "dynamic": el.dynamic})
        return out
