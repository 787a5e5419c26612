"""Top-down adventure: a camera panning over a tiled world with a walking hero and wanderers.

The world is a periodic tile map (water, sand, grass, forest, rock, roads, houses) painted once
into a large image padded with its own wrap, so every frame is a plain slice plus a few sprites.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.sample_data.games.base import Scene
from g2w.sample_data.textures import colorize, random_palette, tileable_noise

# (upper noise threshold, dark colour, light colour) per terrain class, lowest first.
_TERRAIN = (
    (0.32, (20, 60, 140), (50, 110, 190)),  # water
    (0.38, (170, 150, 90), (220, 200, 140)),  # sand
    (0.68, (40, 110, 40), (90, 170, 70)),  # grass
    (0.84, (20, 70, 30), (40, 110, 50)),  # forest
    (1.01, (90, 90, 90), (150, 145, 140)),  # rock
)


class TopDown(Scene):
    def __init__(self, rng: np.random.Generator, width: int, height: int):
        super().__init__(rng, width, height)
        self.tile = max(16, min(width, height) // 9)
        grid_w = int(np.ceil(2.5 * width / self.tile))
        grid_h = int(np.ceil(2.5 * height / self.tile))
        world = self._paint_world(grid_h, grid_w)
        self.world_h, self.world_w = world.shape[:2]
        self.world = np.pad(world, ((0, height), (0, width), (0, 0)), mode="wrap")
        self.velocity = rng.uniform(0.6, 1.6, 2) * self.tile * rng.choice([-1, 1], 2)
        self.wobble = rng.uniform(0.5, 2.0, 2) * self.tile
        self.wanderers = rng.uniform(0, 1, (6, 4))  # start x, start y, speed, heading (fractions)
        self.palette = random_palette(rng)

    def _paint_world(self, grid_h: int, grid_w: int) -> np.ndarray:
        t = self.tile
        field = tileable_noise(self.rng, grid_h, grid_w, 3, 3)
        detail = tileable_noise(self.rng, grid_h * t, grid_w * t, 24, 3)
        world = np.zeros((grid_h * t, grid_w * t, 3), np.uint8)
        cls_big = np.zeros(world.shape[:2], np.int8)
        classes = np.searchsorted([c[0] for c in _TERRAIN], field, side="right")
        cls_big[:] = np.repeat(np.repeat(classes, t, 0), t, 1)
        for k, (_, dark, light) in enumerate(_TERRAIN):
            sel = cls_big == k
            world[sel] = colorize(detail[sel], dark, light)
        road = (140, 120, 95)
        for r in self.rng.choice(grid_h, 2, replace=False):
            world[r * t + t // 4 : r * t + 3 * t // 4] = road
        for c in self.rng.choice(grid_w, 2, replace=False):
            world[:, c * t + t // 4 : c * t + 3 * t // 4] = road
        grass = np.argwhere(classes == 2)
        for gy, gx in grass[self.rng.choice(len(grass), min(len(grass), 12), replace=False)]:
            self._house(world, gx * t, gy * t)
        for gy, gx in np.argwhere(classes == 3)[::3]:
            cv2.circle(world, (gx * t + t // 2, gy * t + t // 2), t // 3, (15, 55, 20), -1, cv2.LINE_AA)
        # grid lines a game would draw between tiles, faint
        world[::t] = (world[::t] * 0.85).astype(np.uint8)
        world[:, ::t] = (world[:, ::t] * 0.85).astype(np.uint8)
        return world

    def _house(self, world: np.ndarray, x: int, y: int) -> None:
        t = self.tile
        roof = tuple(int(c) for c in self.rng.integers(90, 200, 3))
        cv2.rectangle(world, (x + t // 8, y + t // 8), (x + 7 * t // 8, y + 7 * t // 8), roof, -1)
        cv2.line(world, (x + t // 8, y + t // 2), (x + 7 * t // 8, y + t // 2), (40, 30, 30), max(1, t // 16))

    def _camera(self, cam_t: float) -> tuple[int, int]:
        x = self.velocity[0] * cam_t + self.wobble[0] * np.sin(0.3 * cam_t)
        y = self.velocity[1] * cam_t + self.wobble[1] * np.sin(0.23 * cam_t + 1.0)
        return int(x) % self.world_w, int(y) % self.world_h

    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        x0, y0 = self._camera(cam_t)
        frame = self.world[y0 : y0 + self.height, x0 : x0 + self.width].copy()
        t = self.tile
        for k, (sx, sy, speed, heading) in enumerate(self.wanderers):
            angle = 2 * np.pi * heading + 0.4 * np.sin(0.5 * anim_t + k)
            wx = sx * self.world_w + np.cos(angle) * speed * t * anim_t
            wy = sy * self.world_h + np.sin(angle) * speed * t * anim_t
            px = int(wx - x0) % self.world_w
            py = int(wy - y0) % self.world_h
            if px < self.width and py < self.height:
                cv2.circle(frame, (px, py), t // 4, (200, 60, 60), -1, cv2.LINE_AA)
                cv2.circle(frame, (px, py - t // 6), t // 8, (240, 210, 180), -1, cv2.LINE_AA)
        self._hero(frame, anim_t)
        return frame

    def _hero(self, frame: np.ndarray, anim_t: float) -> None:
        """The player character at screen centre, legs swinging with the walk cycle."""
        t = self.tile
        cx, cy = self.width // 2, self.height // 2
        swing = int(t * 0.15 * np.sin(2 * np.pi * 2.0 * anim_t))
        cv2.line(frame, (cx - t // 8, cy + t // 8), (cx - t // 8 + swing, cy + t // 2), (40, 40, 60), max(2, t // 10))
        cv2.line(frame, (cx + t // 8, cy + t // 8), (cx + t // 8 - swing, cy + t // 2), (40, 40, 60), max(2, t // 10))
        cv2.circle(frame, (cx, cy), t // 4, self.palette["accent"], -1, cv2.LINE_AA)
        cv2.circle(frame, (cx, cy - t // 4), t // 6, (250, 220, 190), -1, cv2.LINE_AA)
