"""The canonical canvas and box geometry (Appendix J.2).

Source and edited frames are each scaled straight to one canonical canvas (default 1280x720,
no letterboxing) with Lanczos before any box is mapped or crop cut, so both sides of every
comparison share one pixel grid. Boxes move from the annotation canvas to the canonical one by
flooring the near corner and ceiling the far one (the mapped box always covers the original),
then clipping, keeping at least one pixel per side. Context crops pad a box by a quarter of
its size per side (half the extra of a 1.5x box), at least 8 px; small targets (longest
annotation-space side <= 96 px) also get an exact-box pair. The threshold uses the annotation
space so that the set of panels does not change with the canonical resolution.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

DEFAULT_CANVAS = (1280, 720)
# A context crop is the box grown 1.5x: (1.5 - 1) / 2 = a quarter of the box on each side.
PAD_DIVISOR = 4
MIN_PAD = 8
EXACT_MAX_SIDE = 96

Box = tuple[int, int, int, int]


def to_canvas(rgb: np.ndarray, canvas: tuple[int, int]) -> np.ndarray:
    """Direct Lanczos scaling of an (H, W, 3) frame to canvas (W, H); a no-op at that size."""
    width, height = canvas
    if rgb.shape[1] == width and rgb.shape[0] == height:
        return rgb
    return np.asarray(Image.fromarray(rgb).resize((width, height), Image.Resampling.LANCZOS))


def map_box(box: Box, annotation_size: tuple[int, int], canvas: tuple[int, int]) -> Box:
    """Annotation-canvas box -> canonical-canvas box (floor/ceil, clipped, >= 1 px)."""
    wa, ha = annotation_size
    wc, hc = canvas
    x1, y1, x2, y2 = box
    # Integer arithmetic keeps floor/ceil exact (no float error at exact multiples).
    nx1, ny1 = (x1 * wc) // wa, (y1 * hc) // ha
    nx2, ny2 = -((-x2 * wc) // wa), -((-y2 * hc) // ha)
    nx1, nx2 = _clip_span(nx1, nx2, wc)
    ny1, ny2 = _clip_span(ny1, ny2, hc)
    return nx1, ny1, nx2, ny2


def _clip_span(a: int, b: int, size: int) -> tuple[int, int]:
    a, b = max(0, min(a, size)), max(0, min(b, size))
    if b - a >= 1:
        return a, b
    # Degenerate after clipping: keep one pixel, inside the canvas.
    a = min(a, size - 1)
    return a, a + 1


def context_padding(box: Box) -> tuple[int, int]:
    """(p_x, p_y) = max(8, ceil(w * (1.5 - 1) / 2)), likewise for h."""
    w, h = box[2] - box[0], box[3] - box[1]
    # ceil(w / PAD_DIVISOR) in integers, so no float noise can push an exact quarter up.
    return max(MIN_PAD, -(-w // PAD_DIVISOR)), max(MIN_PAD, -(-h // PAD_DIVISOR))


def context_box(box: Box, canvas: tuple[int, int]) -> Box:
    px, py = context_padding(box)
    wc, hc = canvas
    return max(0, box[0] - px), max(0, box[1] - py), min(wc, box[2] + px), min(hc, box[3] + py)


def needs_exact_pair(annotation_box: Box) -> bool:
    """Small targets, judged by their annotation-space size, also get an exact-box pair."""
    return max(annotation_box[2] - annotation_box[0], annotation_box[3] - annotation_box[1]) <= EXACT_MAX_SIDE


def relative_box(box: Box, crop: Box) -> Box:
    """`box` in the coordinates of `crop` (both canonical-canvas boxes)."""
    return box[0] - crop[0], box[1] - crop[1], box[2] - crop[0], box[3] - crop[1]


def frame_layout(canvas: tuple[int, int]) -> str:
    """Overview pair layout: landscape (and square) canvases stack vertically (ORIGINAL above
    EDITED); portrait ones sit side by side (ORIGINAL left)."""
    width, height = canvas
    return "vertical" if width >= height else "horizontal"


def crop_layout(box: Box) -> str:
    """Detail pair layout: crops wider than tall stack vertically, taller than wide side by
    side; square crops stack vertically like landscape frames."""
    return "vertical" if box[2] - box[0] >= box[3] - box[1] else "horizontal"


def crop(rgb: np.ndarray, box: Box) -> np.ndarray:
    return rgb[box[1] : box[3], box[0] : box[2]]


def box_area(box: Box) -> int:
    return max(0, box[2] - box[0]) * max(0, box[3] - box[1])


def oriented_canvas(canvas: tuple[int, int], width: int, height: int) -> tuple[int, int]:
    """The canvas turned to the video's orientation: 1280x720 for landscape and square sources,
    720x1280 for portrait ones (the canvas is given as long side x short side)."""
    long_side, short_side = max(canvas), min(canvas)
    return (short_side, long_side) if height > width else (long_side, short_side)
