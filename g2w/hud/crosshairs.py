"""Small procedural crosshairs: the few-pixel reticles most shooters draw by default.

The asset library's crosshairs are sized by the paper's role prior, up to several per cent of
the frame, while the usual default reticle of a modern shooter is a dot, a gapped plus or a small
circle of a dozen pixels. A detector that has only seen big crosshairs misses the small ones, so a
drawn crosshair widget is replaced by a small procedural one at the surveyed share of small
default crosshairs (`survey.RATES["small_crosshair"]`), keeping its centre. Shapes, sizes and
colours are ours; a one-pixel dark outline, as Counter-Strike's default has, is optional.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.hud.seeds import SeedStreams
from g2w.hud.survey import RATES
from g2w.hud.text_draw import over

SHAPES = ("dot", "plus", "gap_plus", "circle", "circle_dot", "t", "chevron", "x")
SIZE = (0.006, 0.02)  # of the frame width
COLOURS = ([0, 255, 0], [255, 255, 255], [0, 255, 255], [255, 255, 0], [255, 60, 60], [255, 0, 255])
OUTLINE = 0.4  # share with a dark one-pixel outline (ours)


def plan_small_crosshair(streams: SeedStreams, width: int) -> dict | None:
    """A small crosshair's shape, or None to keep the asset crosshair."""
    rng = streams.rng("composition", "crosshair", "small")
    if rng.random() >= RATES["small_crosshair"]:
        return None
    size = max(5, round(float(rng.uniform(*SIZE)) * width)) | 1  # odd: a centre pixel
    return {
        "shape": SHAPES[int(rng.integers(len(SHAPES)))],
        "size": size,
        "thickness": 1 if size < 13 else int(rng.integers(1, 3)),
        "color": list(COLOURS[int(rng.integers(len(COLOURS)))]),
        "outline": bool(rng.random() < OUTLINE),
    }


def crosshair_patch(spec: dict) -> np.ndarray:
    """(h, w, 4) uint8 RGBA of a small crosshair, alpha not yet scaled by the HUD's opacity."""
    n, t = spec["size"], spec["thickness"]
    pad = 1
    m = np.zeros((n + 2 * pad, n + 2 * pad), np.uint8)
    c, r, g = n // 2 + pad, n // 2, max(1, n // 5)
    shape = spec["shape"]

    def line(x1, y1, x2, y2):
        cv2.line(m, (x1, y1), (x2, y2), 255, t)

    if shape in ("dot", "circle_dot"):
        cv2.circle(m, (c, c), max(1, t), 255, -1)
    if shape in ("circle", "circle_dot"):
        cv2.circle(m, (c, c), r, 255, t)
    if shape == "plus":
        line(c - r, c, c + r, c)
        line(c, c - r, c, c + r)
    if shape in ("gap_plus", "t"):
        line(c - r, c, c - g, c)
        line(c + g, c, c + r, c)
        line(c, c + g, c, c + r)
        if shape == "gap_plus":
            line(c, c - r, c, c - g)
    if shape == "chevron":
        line(c - r, c + r // 2, c, c)
        line(c, c, c + r, c + r // 2)
    if shape == "x":
        line(c - r, c - r, c + r, c + r)
        line(c - r, c + r, c + r, c - r)
    fill = m.astype(np.float32) / 255.0
    out = np.zeros((*m.shape, 4), np.float32)
    if spec["outline"]:
        over(out, [0, 0, 0], cv2.dilate(fill, np.ones((3, 3), np.uint8)))
    over(out, spec["color"], fill)
    return np.dstack([np.rint(out[..., :3]), np.rint(out[..., 3] * 255)]).astype(np.uint8)
