"""Racing: a curving pseudo-3D road with rumble strips, roadside trees, a rival and the player car.

Each screen row below the horizon sees the road at one depth, so the road is computed per row
(centre, half-width, stripe phase) and broadcast across columns, the way arcade racers did it.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.sample_data.games.base import Scene
from g2w.sample_data.textures import colorize, random_palette, tileable_noise

_ROAD_HALF_WIDTH, _CAM_HEIGHT, _SEGMENT = 4.0, 1.4, 6.0  # metres


class Racing(Scene):
    def __init__(self, rng: np.random.Generator, width: int, height: int):
        super().__init__(rng, width, height)
        pal = random_palette(rng)
        self.palette = pal
        self.horizon = int(0.42 * height)
        self.focal = 0.8 * max(width, height)
        self.speed = rng.uniform(18, 32)  # m/s
        self.curves = rng.uniform(-1, 1, 2) * np.array([3e-3, 1.5e-3])
        self.curve_len = rng.uniform(60, 160, 2)
        ramp = np.linspace(0, 1, self.horizon, dtype=np.float32)[:, None, None]
        sky = np.array(pal["light"], np.float32) * (1 - ramp) + np.array((200, 220, 240), np.float32) * ramp
        self.sky = np.broadcast_to(sky, (self.horizon, width, 3)).astype(np.uint8).copy()
        period = 3 * width
        profile = tileable_noise(rng, 1, period, 5, 3)[0]
        band = int(0.18 * height)
        rows = np.arange(band)[:, None]
        self.mountain_mask = np.pad(
            (rows >= band - (profile * band).astype(int)[None]).astype(np.uint8) * 255,
            ((0, 0), (0, width)),
            mode="wrap",
        )
        shade = colorize(tileable_noise(rng, band, period, 10, 2), pal["dark"], pal["secondary"])
        self.mountains = np.pad(shade, ((0, 0), (0, width), (0, 0)), mode="wrap")
        self.mountain_period = period
        # class index -> colour: grass light/dark, rumble red/white, road light/dark, lane paint
        lut = np.zeros((256, 1, 3), np.uint8)
        lut[:7, 0] = [
            (60, 150, 50),
            (45, 125, 40),
            (200, 40, 40),
            (235, 235, 235),
            (105, 105, 110),
            (95, 95, 100),
            (240, 240, 240),
        ]
        self.lut = lut
        d = np.arange(1, height - self.horizon + 1, dtype=np.float32)
        self.depth = _CAM_HEIGHT * self.focal / d  # metres ahead for each row below the horizon
        self.columns = np.arange(width, dtype=np.float32)[None, :]

    def _curve(self, s: np.ndarray | float) -> np.ndarray:
        c, length = self.curves, self.curve_len
        return c[0] * np.sin(s / length[0]) + c[1] * np.sin(s / length[1] + 1.3)

    def _road_x(self, travel: float, z: np.ndarray, lateral: float) -> np.ndarray:
        """Screen column of the road centre at depths z: bend grows with the square of depth."""
        bend = 0.5 * self._curve(travel) * z**2
        return self.width / 2 + self.focal * (bend - lateral) / z

    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        travel = self.speed * cam_t
        lateral = 1.2 * np.sin(0.25 * cam_t)
        frame = np.empty((self.height, self.width, 3), np.uint8)
        frame[: self.horizon] = self.sky
        band = self.mountains.shape[0]
        heading = int(-3000 * self._curve(travel) + 0.02 * travel) % self.mountain_period
        rows = slice(self.horizon - band, self.horizon)
        cv2.copyTo(
            self.mountains[:, heading : heading + self.width],
            self.mountain_mask[:, heading : heading + self.width],
            frame[rows],
        )

        frame[self.horizon :] = self._road(travel, lateral)

        self._trees(frame, travel, lateral)
        self._rival(frame, travel, anim_t, lateral)
        self._player(frame, cam_t)
        return frame

    def _road(self, travel: float, lateral: float) -> np.ndarray:
        """The ground below the horizon: class per pixel from per-row road geometry, then a LUT."""
        z = self.depth
        centre = self._road_x(travel, z, lateral).astype(np.float32)[:, None]
        half = (self.focal * _ROAD_HALF_WIDTH / z).astype(np.float32)[:, None]
        stripe = (np.floor((travel + z) / _SEGMENT) % 2).astype(np.uint8)[:, None]
        dist = np.abs(self.columns - centre)
        cls = (dist < half).view(np.uint8) * np.uint8(2)
        cls += (dist < 1.12 * half).view(np.uint8) * np.uint8(2)
        cls += stripe
        painted = np.flatnonzero(stripe[:, 0])
        d, h = dist[painted], half[painted]
        paint = (d < 0.02 * h) | (np.abs(d - 0.5 * h) < 0.015 * h)
        cls[painted] = np.where(paint, np.uint8(6), cls[painted])
        return cv2.LUT(cv2.merge([cls, cls, cls]), self.lut)

    def _project(self, travel: float, ahead: float, x: float, lateral: float) -> tuple[int, int, float]:
        scale = self.focal / ahead
        sx = self._road_x(travel, np.array([ahead]), lateral)[0] + x * scale
        sy = self.horizon + _CAM_HEIGHT * scale
        return int(sx), int(sy), scale

    def _trees(self, frame: np.ndarray, travel: float, lateral: float) -> None:
        spacing = 3 * _SEGMENT
        first = np.ceil((travel + 8) / spacing) * spacing
        for s in np.arange(first + 20 * spacing, first - 1, -spacing):  # far to near
            for side in (-1, 1):
                sx, sy, scale = self._project(travel, s - travel, side * 1.8 * _ROAD_HALF_WIDTH, lateral)
                r = max(1, int(1.6 * scale))
                cv2.rectangle(frame, (sx - r // 5, sy - 2 * r), (sx + r // 5, sy), (90, 60, 30), -1)
                cv2.circle(frame, (sx, sy - 3 * r), int(1.3 * r), (30, 100, 35), -1, cv2.LINE_AA)

    def _rival(self, frame: np.ndarray, travel: float, anim_t: float, lateral: float) -> None:
        ahead = 25 + 15 * np.sin(0.3 * anim_t)
        sx, sy, scale = self._project(travel, ahead, 1.8 * np.sin(0.5 * anim_t), lateral)
        w, h = int(0.9 * scale), int(0.6 * scale)
        cv2.rectangle(frame, (sx - w, sy - h), (sx + w, sy), self.palette["accent"], -1)
        cv2.rectangle(frame, (sx - w, sy - h // 4), (sx + w, sy), (30, 30, 30), -1)

    def _player(self, frame: np.ndarray, cam_t: float) -> None:
        """The player's car in third person, bottom centre, leaning into the steering."""
        s = min(self.width, self.height)
        lean = int(0.03 * s * np.sin(0.25 * cam_t + np.pi / 2))
        cx, bottom = self.width // 2 + lean, self.height - int(0.04 * s)
        w, h = int(0.16 * s), int(0.12 * s)
        cv2.rectangle(frame, (cx - w, bottom - h), (cx + w, bottom), (200, 30, 40), -1)
        cv2.rectangle(frame, (cx - 2 * w // 3, bottom - 2 * h), (cx + 2 * w // 3, bottom - h), (160, 20, 30), -1)
        cv2.rectangle(frame, (cx - w // 2, bottom - 2 * h + h // 5), (cx + w // 2, bottom - h), (60, 80, 110), -1)
        for side in (-1, 1):
            cv2.rectangle(
                frame,
                (cx + side * w - w // 5, bottom - h // 3),
                (cx + side * w + w // 5, bottom + h // 6),
                (20, 20, 20),
                -1,
            )
