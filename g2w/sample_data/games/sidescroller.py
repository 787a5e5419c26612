"""Side-scroller: parallax layers (sky, mountains, hills, tiled ground) and a running hero.

Each layer is a periodic strip painted once and padded with its own wrap; a frame pastes each
layer's window, shifted by the camera times the layer's parallax factor, through its mask.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.sample_data.games.base import Scene
from g2w.sample_data.textures import colorize, random_palette, tileable_noise


class _Layer:
    """A periodic horizontal strip with an opacity mask, placed at rows [top, top + height)."""

    def __init__(self, rgb: np.ndarray, mask: np.ndarray, top: int, parallax: float, view_width: int):
        self.period = rgb.shape[1]
        self.rgb = np.pad(rgb, ((0, 0), (0, view_width), (0, 0)), mode="wrap")
        self.mask = np.pad(mask, ((0, 0), (0, view_width)), mode="wrap")
        self.top, self.parallax = top, parallax

    def paste(self, frame: np.ndarray, cam_x: float) -> None:
        w = frame.shape[1]
        x = int(cam_x * self.parallax) % self.period
        rows = slice(self.top, self.top + self.rgb.shape[0])
        cv2.copyTo(self.rgb[:, x : x + w], self.mask[:, x : x + w], frame[rows])


class SideScroller(Scene):
    def __init__(self, rng: np.random.Generator, width: int, height: int):
        super().__init__(rng, width, height)
        pal = random_palette(rng)
        self.palette = pal
        self.unit = max(8, min(width, height) // 14)
        top, bottom = np.array(pal["light"], np.float32), np.array(pal["secondary"], np.float32)
        ramp = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
        self.sky = np.broadcast_to(top * (1 - ramp) + bottom * ramp, (height, width, 3)).astype(np.uint8).copy()
        cv2.circle(self.sky, (int(width * 0.8), int(height * 0.18)), self.unit, (255, 240, 200), -1, cv2.LINE_AA)
        self.layers = [
            self._ridge(0.25, 0.55, pal["dark"], 0.15, cells=3),
            self._ridge(0.45, 0.72, pal["primary"], 0.4, cells=6),
            self._ground(0.72, 1.0),
        ]
        self.speed = rng.uniform(2.5, 5.0) * self.unit  # px/s at the ground layer
        self.clouds = rng.uniform(0, 1, (5, 3))

    def _ridge(self, lo: float, hi: float, color, parallax: float, cells: int) -> _Layer:
        """A mountain or hill silhouette between rows lo*H and hi*H."""
        period = 3 * self.width
        top, bottom = int(lo * self.height), int(hi * self.height)
        profile = tileable_noise(self.rng, 1, period, cells, 3)[0]
        heights = (profile * (bottom - top)).astype(int)
        rows = np.arange(bottom - top)[:, None]
        mask = (rows >= (bottom - top) - heights[None, :]).astype(np.uint8) * 255
        shade = tileable_noise(self.rng, bottom - top, period, 12, 3)
        rgb = colorize(shade, tuple(int(c * 0.7) for c in color), color)
        return _Layer(rgb, mask, top, parallax, self.width)

    def _ground(self, lo: float, hi: float) -> _Layer:
        """Grass-topped brick ground with floating platforms and coins above it."""
        period = 4 * self.width
        top = int(lo * self.height) - 4 * self.unit
        h = self.height - top
        u = self.unit
        rgb = np.zeros((h, period, 3), np.uint8)
        mask = np.zeros((h, period), np.uint8)
        ground_top = 4 * u
        rgb[ground_top:] = colorize(
            tileable_noise(self.rng, h - ground_top, period, 40, 2), (110, 70, 40), (160, 105, 60)
        )
        rgb[ground_top : ground_top + u // 2] = (70, 170, 60)
        rgb[ground_top::u] = (80, 50, 30)
        for x in range(0, period, u):
            rgb[ground_top + u // 2 :, x : x + max(1, u // 12)] = (80, 50, 30)
        mask[ground_top:] = 255
        for x in self.rng.choice(period // u - 4, 10, replace=False) * u:
            y = int(self.rng.integers(u, 3 * u))
            cv2.rectangle(rgb, (x, y), (x + 3 * u, y + u // 2), (180, 120, 60), -1)
            cv2.rectangle(mask, (x, y), (x + 3 * u, y + u // 2), 255, -1)
            cv2.circle(rgb, (x + 3 * u // 2, y - u // 2), u // 3, (250, 210, 40), -1, cv2.LINE_AA)
            cv2.circle(mask, (x + 3 * u // 2, y - u // 2), u // 3, 255, -1, cv2.LINE_AA)
        self.ground_row = top + ground_top
        return _Layer(rgb, mask, top, 1.0, self.width)

    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        frame = self.sky.copy()
        u = self.unit
        for x, y, speed in self.clouds:
            cx = int((x * self.width * 2 - (10 + 20 * speed) * anim_t) % (self.width + 4 * u)) - 2 * u
            cy = int(y * 0.3 * self.height) + u
            cv2.ellipse(frame, (cx, cy), (2 * u, u // 2), 0, 0, 360, (250, 250, 250), -1, cv2.LINE_AA)
        cam_x = self.speed * cam_t + 2 * u * np.sin(0.4 * cam_t)
        for layer in self.layers:
            layer.paste(frame, cam_x)
        self._hero(frame, anim_t)
        return frame

    def _hero(self, frame: np.ndarray, anim_t: float) -> None:
        u = self.unit
        hop = int(abs(np.sin(2 * np.pi * 0.7 * anim_t)) * 1.5 * u)
        x, y = int(self.width * 0.3), self.ground_row - hop
        stride = int(0.3 * u * np.sin(2 * np.pi * 3 * anim_t))
        cv2.rectangle(frame, (x - u // 3, y - 3 * u // 2), (x + u // 3, y - u // 3), self.palette["accent"], -1)
        cv2.circle(frame, (x, y - 3 * u // 2 - u // 4), u // 3, (250, 215, 180), -1, cv2.LINE_AA)
        cv2.line(frame, (x - u // 6, y - u // 3), (x - u // 6 + stride, y), (50, 40, 90), max(2, u // 6))
        cv2.line(frame, (x + u // 6, y - u // 3), (x + u // 6 - stride, y), (50, 40, 90), max(2, u // 6))
