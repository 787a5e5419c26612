"""First-person corridor: perspective-textured floor, walls and ceiling, a swaying weapon.

The camera's view geometry never changes, only its position along the corridor, so the texture
coordinates of every pixel are computed once. Moving forward is then a roll of the (small)
textures along the corridor axis, and a frame is one cv2.remap through the fixed maps. Yaw and
head bob come from cropping a slightly larger precomputed view.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.sample_data.games.base import Scene
from g2w.sample_data.textures import bricks, checker_tiles, colorize, random_palette, tileable_noise

_TEX = 512  # side of each square texture in the atlas
_HALF_WIDTH, _EYE, _CEILING = 1.0, 0.55, 0.75  # corridor half-width, eye and ceiling height (m)
_TEXELS_PER_M = _TEX / 2.0


class Corridor(Scene):
    def __init__(self, rng: np.random.Generator, width: int, height: int):
        super().__init__(rng, width, height)
        pal = random_palette(rng)
        floor = checker_tiles(rng, _TEX, 8, pal["light"], pal["secondary"])
        wall = bricks(rng, _TEX, _TEX, 10, 5, pal["primary"], pal["dark"]).transpose(1, 0, 2)
        ceiling = colorize(tileable_noise(rng, _TEX, _TEX, 4), pal["dark"], pal["secondary"])
        for k in range(2):  # two lamps per texture period, so they pass by as the camera moves
            y = _TEX // 4 + k * _TEX // 2
            cv2.rectangle(ceiling, (_TEX // 2 - 40, y - 12), (_TEX // 2 + 40, y + 12), (255, 250, 220), -1)
        # Texture rows run along the corridor. Each is stored twice over plus one row, so any
        # roll is a slice of _TEX + 1 rows whose last row repeats its first: bilinear lookups
        # across the wrap stay seamless.
        self.textures = [np.concatenate([t, t, t[:1]]) for t in (floor, wall, ceiling)]
        self.speed = rng.uniform(1.2, 2.4)  # m/s
        self.sway_phase = rng.uniform(0, 2 * np.pi)
        self.pad_x, self.pad_y = int(0.06 * width), int(0.04 * height)
        self._build_maps(width + 2 * self.pad_x, height + 2 * self.pad_y)
        self.enemy_color = pal["accent"]

    def _build_maps(self, w: int, h: int) -> None:
        focal = 0.75 * max(self.width, self.height)
        dx = (np.arange(w, dtype=np.float32) - w / 2)[None, :] / focal
        dy = (np.arange(h, dtype=np.float32) - h / 2)[:, None] / focal
        with np.errstate(divide="ignore"):
            z_side = _HALF_WIDTH / np.abs(dx)
            z_flat = np.where(dy > 0, _EYE / dy, np.where(dy < 0, _CEILING / -dy, np.inf))
        z_side = np.broadcast_to(z_side, (h, w))
        z_flat = np.broadcast_to(z_flat, (h, w))
        on_wall = z_side < z_flat
        z = np.minimum(np.minimum(z_side, z_flat), 60.0)
        lateral = (dx * z + _HALF_WIDTH) / (2 * _HALF_WIDTH)  # 0..1 across floor/ceiling
        height_on_wall = (_EYE - dy * z) / (_EYE + _CEILING)  # 0 floor .. 1 ceiling
        map_x = (np.where(on_wall, height_on_wall, lateral) % 1.0 * (_TEX - 1)).astype(np.float32)
        region = np.where(on_wall, 1, np.where(dy > 0, 0, 2)).astype(np.float32)
        map_y = (region * (_TEX + 1) + np.mod(z * _TEXELS_PER_M, _TEX)).astype(np.float32)
        # fixed-point maps make remap about twice as fast as float ones
        self.map_xy, self.map_frac = cv2.convertMaps(map_x, map_y, cv2.CV_16SC2)
        fog = (255 * np.exp(-z / 14.0)).astype(np.uint8)
        self.fog = cv2.merge([fog, fog, fog])
        self.focal = focal

    def _camera(self, cam_t: float) -> tuple[float, int, int]:
        travel = self.speed * cam_t + 0.4 * np.sin(0.5 * cam_t)
        yaw = int(self.pad_x * 0.9 * np.sin(0.37 * cam_t + self.sway_phase))
        bob = int(self.pad_y * 0.5 * np.sin(2 * np.pi * 1.7 * cam_t))
        return travel, yaw, bob

    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        travel, yaw, bob = self._camera(cam_t)
        ys = slice(self.pad_y + bob, self.pad_y + bob + self.height)
        xs = slice(self.pad_x + yaw, self.pad_x + yaw + self.width)
        start = int(round(travel * _TEXELS_PER_M)) % _TEX
        atlas = np.concatenate([t[start : start + _TEX + 1] for t in self.textures])
        frame = cv2.remap(
            atlas, self.map_xy[ys, xs], self.map_frac[ys, xs], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        frame = cv2.multiply(frame, self.fog[ys, xs], scale=1 / 255)
        self._draw_enemy(frame, anim_t, yaw, bob)
        self._draw_weapon(frame, cam_t)
        return frame

    def _draw_enemy(self, frame: np.ndarray, anim_t: float, yaw: int, bob: int) -> None:
        """A hovering drone that drifts across the corridor on its own clock."""
        depth = 6.0 + 3.0 * np.sin(0.23 * anim_t)
        side = 0.6 * np.sin(0.8 * anim_t)
        cx = int(self.width / 2 - yaw + self.focal * side / depth)
        cy = int(self.height / 2 - bob + self.focal * (0.1 * np.sin(2.1 * anim_t)) / depth)
        r = max(3, int(self.focal * 0.25 / depth))
        cv2.circle(frame, (cx, cy), r, self.enemy_color, -1, cv2.LINE_AA)
        cv2.circle(frame, (cx, cy), max(1, r // 3), (255, 40, 40), -1, cv2.LINE_AA)

    def _draw_weapon(self, frame: np.ndarray, cam_t: float) -> None:
        """The player's gun in the lower right, swaying with the walk cycle (world, not HUD)."""
        s = min(self.width, self.height)
        sway_x = int(0.02 * s * np.sin(2 * np.pi * 0.85 * cam_t))
        sway_y = int(0.015 * s * abs(np.sin(2 * np.pi * 0.85 * cam_t)))
        x0, y0 = int(self.width * 0.62) + sway_x, int(self.height - 0.28 * s) + sway_y
        body = np.array(
            [[x0, self.height], [x0 + int(0.1 * s), y0], [x0 + int(0.2 * s), y0], [x0 + int(0.3 * s), self.height]],
            np.int32,
        )
        cv2.fillPoly(frame, [body], (70, 72, 80), cv2.LINE_AA)
        cv2.rectangle(
            frame, (x0 + int(0.13 * s), y0 - int(0.1 * s)), (x0 + int(0.17 * s), y0), (45, 45, 52), -1, cv2.LINE_AA
        )
