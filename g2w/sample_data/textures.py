"""Procedural textures shared by the sample game scenes.

All textures tile seamlessly (their noise is built on a wrapped grid), so scenes can scroll them
forever with modular indexing. Everything is RGB uint8 and seeded by an explicit Generator.
"""

from __future__ import annotations

import cv2
import numpy as np


def tileable_noise(rng: np.random.Generator, height: int, width: int, cells: int, octaves: int = 4) -> np.ndarray:
    """Fractal value noise in [0, 1] of shape (height, width) that wraps at its edges.

    Each octave upsamples a random grid that is padded with its own first rows/columns, so the
    interpolated field is periodic.
    """
    out = np.zeros((height, width), np.float32)
    amplitude, total = 1.0, 0.0
    for octave in range(octaves):
        n = cells * (2**octave)
        grid = rng.random((n + 1, n + 1), dtype=np.float32)
        grid[-1, :], grid[:, -1] = grid[0, :], grid[:, 0]
        big = cv2.resize(grid, (width + width // n, height + height // n), interpolation=cv2.INTER_CUBIC)
        out += amplitude * big[:height, :width]
        total += amplitude
        amplitude *= 0.5
    out /= total
    lo, hi = out.min(), out.max()
    return (out - lo) / max(hi - lo, 1e-6)


def colorize(field: np.ndarray, dark: tuple[int, int, int], light: tuple[int, int, int]) -> np.ndarray:
    """Blend two RGB colours by a [0, 1] field."""
    f = field[..., None]
    return (np.array(dark, np.float32) * (1 - f) + np.array(light, np.float32) * f).astype(np.uint8)


def bricks(
    rng: np.random.Generator,
    height: int,
    width: int,
    rows: int,
    cols: int,
    brick: tuple[int, int, int],
    mortar: tuple[int, int, int],
) -> np.ndarray:
    """A running-bond brick wall with per-brick tint and surface noise."""
    tex = colorize(tileable_noise(rng, height, width, 8, 3), tuple(c // 2 for c in brick), brick)
    bh, bw = height / rows, width / cols
    tints = rng.uniform(0.75, 1.15, size=(rows, cols + 1))
    for r in range(rows):
        shift = (bw / 2) * (r % 2)
        y0, y1 = int(r * bh), int((r + 1) * bh)
        for c in range(-1, cols + 1):
            x0 = int(c * bw + shift)
            xs = slice(max(0, x0), min(width, int(x0 + bw)))
            tex[y0:y1, xs] = np.clip(tex[y0:y1, xs] * tints[r, c % cols], 0, 255)
        tex[y0 : y0 + max(1, int(bh * 0.1))] = mortar
        for c in range(cols + 1):
            x = int(c * bw + shift) % width
            tex[y0:y1, x : x + max(1, int(bw * 0.05))] = mortar
    return tex


def checker_tiles(
    rng: np.random.Generator, size: int, n: int, a: tuple[int, int, int], b: tuple[int, int, int]
) -> np.ndarray:
    """Square floor tiles in two colours with grout lines and wear."""
    idx = np.arange(size) * n // size
    pattern = (idx[:, None] + idx[None, :]) % 2
    base = np.where(pattern[..., None] == 1, np.array(a, np.uint8), np.array(b, np.uint8))
    wear = tileable_noise(rng, size, size, 6, 3)[..., None]
    tex = np.clip(base.astype(np.float32) * (0.8 + 0.35 * wear), 0, 255).astype(np.uint8)
    line = max(1, size // (n * 16))
    edges = (np.arange(size) % (size // n)) < line
    tex[edges, :] = tex[edges, :] // 2
    tex[:, edges] = tex[:, edges] // 2
    return tex


def random_palette(rng: np.random.Generator) -> dict[str, tuple[int, int, int]]:
    """A coherent set of scene colours around a random base hue."""
    hue = rng.uniform(0, 180)

    def hsv(dh: float, s: float, v: float) -> tuple[int, int, int]:
        px = np.uint8([[[int((hue + dh) % 180), int(s * 255), int(v * 255)]]])
        return tuple(int(c) for c in cv2.cvtColor(px, cv2.COLOR_HSV2RGB)[0, 0])

    return {
        "primary": hsv(0, 0.55, 0.75),
        "secondary": hsv(60, 0.45, 0.65),
        "accent": hsv(100, 0.85, 0.95),
        "dark": hsv(20, 0.4, 0.25),
        "light": hsv(-20, 0.25, 0.92),
    }
