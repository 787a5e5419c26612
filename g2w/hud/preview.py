"""Side-by-side previews of a synthesized frame: clean | HUD with boxes and labels | mask.

Written once per sample (`preview.png`, the middle frame) so a person can see at a glance what
was composited and whether the boxes hug it; the synthesize report shows these.
"""

from __future__ import annotations

import colorsys
import zlib

import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.io.html_page import fit_box

PANEL_WIDTH = 480


def _color(label: str) -> tuple[int, int, int]:
    hue = (zlib.crc32(label.encode()) % 360) / 360.0
    r, g, b = colorsys.hsv_to_rgb(hue, 0.85, 1.0)
    return int(r * 255), int(g * 255), int(b * 255)


def draw_boxes(rgb: np.ndarray, objects: list[dict], instances: dict[str, dict], scale: float = 1.0) -> np.ndarray:
    """Boxes (half-open, frame pixels times `scale`) with their label and kind drawn on a copy."""
    img = Image.fromarray(rgb)
    d = ImageDraw.Draw(img)
    for obj in objects:
        inst = instances[obj["id"]]
        color = _color(inst["label"])
        x1, y1, x2, y2 = (v * scale for v in obj["box"])
        d.rectangle(
            [x1, y1, max(x1, x2 - 1), max(y1, y2 - 1)], outline=color, width=1 if inst["kind"] == "child" else 2
        )
        if inst["kind"] == "child":  # icons sit in their bar's box, which carries the label
            continue
        text = inst["label"]
        if obj["visible_fraction"] < 1:
            text += f" {obj['visible_fraction']:.2f}"
        d.text(
            (x1 + 2, max(0, y1 - 12)), text, font=font(10, bold=True), fill=color, stroke_width=1, stroke_fill=(0, 0, 0)
        )
    return np.asarray(img)


def preview(
    clean: np.ndarray, hud: np.ndarray, mask: np.ndarray, objects: list[dict], instances: dict[str, dict]
) -> np.ndarray:
    """One RGB strip: clean frame, HUD frame with boxes, mask; each PANEL_WIDTH wide."""
    h, w = clean.shape[:2]
    scale = PANEL_WIDTH / w
    panels = [
        fit_box(clean, PANEL_WIDTH, 10**6),
        fit_box(hud, PANEL_WIDTH, 10**6),
        fit_box(np.repeat(mask[..., None], 3, axis=2), PANEL_WIDTH, 10**6),
    ]
    panels[1] = draw_boxes(panels[1], objects, instances, scale)
    return np.concatenate(panels, axis=1)
