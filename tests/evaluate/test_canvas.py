"""Canonical canvas (J.2): box mapping, padding at edges, exact-pair rule, orientation rules."""

import numpy as np

from g2w.cases.canvas import (
    context_box,
    context_padding,
    crop_layout,
    frame_layout,
    map_box,
    needs_exact_pair,
    oriented_canvas,
    to_canvas,
)


def test_map_box_floors_near_and_ceils_far_corner():
    # 1920x1080 -> 1280x720 is a 2/3 scale: 31 * 2/3 = 20.67 -> 20, 61 * 2/3 = 40.67 -> 41.
    assert map_box((31, 31, 61, 61), (1920, 1080), (1280, 720)) == (20, 20, 41, 41)
    # Exact multiples stay exact (no float error pushes a ceil up).
    assert map_box((300, 150, 600, 450), (1920, 1080), (1280, 720)) == (200, 100, 400, 300)
    # Upscaling: 320x180 -> 1280x720 multiplies by 4.
    assert map_box((1, 2, 3, 4), (320, 180), (1280, 720)) == (4, 8, 12, 16)


def test_map_box_clips_and_keeps_one_pixel():
    assert map_box((1900, 1070, 1920, 1080), (1920, 1080), (1280, 720)) == (1266, 713, 1280, 720)
    # A one-pixel box at the far corner of a downscale maps to one pixel inside the canvas.
    x1, y1, x2, y2 = map_box((1919, 1079, 1920, 1080), (1920, 1080), (640, 360))
    assert (x2 - x1, y2 - y1) == (1, 1) and x2 <= 640 and y2 <= 360
    # A sliver thinner than a canvas pixel still gets at least one pixel per side.
    x1, y1, x2, y2 = map_box((10, 10, 11, 11), (4000, 4000), (100, 100))
    assert x2 - x1 >= 1 and y2 - y1 >= 1


def test_context_padding_quarter_with_minimum_eight():
    assert context_padding((0, 0, 100, 20)) == (25, 8)  # ceil(100 * 0.25) = 25; 20 * 0.25 < 8
    assert context_padding((0, 0, 101, 40)) == (26, 10)  # ceil(25.25) = 26
    assert context_padding((0, 0, 4, 4)) == (8, 8)


def test_context_box_clipped_at_canvas_edges():
    assert context_box((0, 0, 40, 40), (1280, 720)) == (0, 0, 50, 50)
    assert context_box((1250, 700, 1280, 720), (1280, 720)) == (1242, 692, 1280, 720)
    assert context_box((100, 100, 200, 140), (1280, 720)) == (75, 90, 225, 150)


def test_exact_pair_uses_annotation_space_longest_side():
    assert needs_exact_pair((0, 0, 96, 10))
    assert not needs_exact_pair((0, 0, 97, 10))
    assert not needs_exact_pair((5, 0, 6, 200))


def test_orientation_rules():
    assert frame_layout((1280, 720)) == "vertical"  # landscape: ORIGINAL above EDITED
    assert frame_layout((720, 1280)) == "horizontal"  # portrait: side by side
    assert frame_layout((720, 720)) == "vertical"
    assert crop_layout((0, 0, 50, 10)) == "vertical"  # wider than tall: stacked
    assert crop_layout((0, 0, 10, 50)) == "horizontal"  # taller than wide: side by side
    assert oriented_canvas((1280, 720), 1080, 1920) == (720, 1280)
    assert oriented_canvas((1280, 720), 1920, 1080) == (1280, 720)


def test_to_canvas_scales_directly_without_letterbox():
    frame = np.zeros((100, 300, 3), np.uint8)
    frame[:, 150:] = 200
    out = to_canvas(frame, (160, 90))
    assert out.shape == (90, 160, 3)
    assert out[:, :70].max() < 20 and out[:, 90:].min() > 180  # stretched, no black bars
    assert to_canvas(frame, (300, 100)) is frame
