"""Blending only the layers' boxes gives exactly what blending the whole frame gives, in RGB and in
the clip's own I420."""

import cv2
import numpy as np

from g2w.hud.composite import Compositor, disjoint_groups
from g2w.hud.composite_yuv import YuvCompositor, half, premultiplied
from g2w.hud.layers import Layer
from g2w.hud.patches import visible_part
from g2w.types import Box
from g2w.video.yuv import i420_to_rgb, planes, rgb_to_i420, ycbcr_matrix


def full_frame_reference(frame, layers):
    """The compositing expression over a whole-frame float copy, rounded once."""
    out = frame.astype(np.float32)
    mask = np.zeros(frame.shape[:2], np.uint8)
    for layer in layers:
        h, w = layer.rgba.shape[:2]
        src, dst = visible_part(layer.x, layer.y, w, h, frame.shape[1], frame.shape[0])
        if dst.empty:
            continue
        patch = layer.rgba[src.y1 : src.y2, src.x1 : src.x2]
        a = patch[..., 3:4].astype(np.float32) / np.float32(255.0)
        region = out[dst.y1 : dst.y2, dst.x1 : dst.x2]
        region[:] = patch[..., :3].astype(np.float32) * a + region * (np.float32(1.0) - a)
        mask[dst.y1 : dst.y2, dst.x1 : dst.x2][patch[..., 3] > 0] = 255
    return np.rint(out).astype(np.uint8), mask


def random_layers(rng, count, width, height):
    layers = []
    for i in range(count):
        w, h = rng.integers(8, width // 2), rng.integers(8, height // 2)
        rgba = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
        rgba[..., 3][rng.random((h, w)) < 0.3] = 0  # holes, as in real widgets
        layers.append(Layer(f"l{i}", rgba, int(rng.integers(-w // 2, width)), int(rng.integers(-h // 2, height))))
    return layers


def test_region_blending_is_bit_identical_to_whole_frame_blending():
    rng = np.random.default_rng(0)
    for trial in range(40):
        frame = rng.integers(0, 256, (90, 160, 3), dtype=np.uint8)
        layers = random_layers(rng, int(rng.integers(0, 9)), 160, 90)
        hud, mask = Compositor("cpu")(frame, layers)
        ref_hud, ref_mask = full_frame_reference(frame, layers)
        assert np.array_equal(hud, ref_hud), trial
        assert np.array_equal(mask, ref_mask), trial


def test_groups_are_disjoint_keep_draw_order_and_cover_every_layer():
    boxes = [Box(0, 0, 10, 10), Box(50, 50, 60, 60), Box(8, 8, 20, 12), Box(18, 0, 22, 30), Box(30, 20, 40, 25)]
    regions = [(np.zeros((1, 1, 4), np.uint8), b) for b in boxes]
    groups = disjoint_groups(regions)
    for i, (a, _) in enumerate(groups):
        for b, _ in groups[i + 1 :]:
            assert a.intersect(b).empty
    members = [[boxes.index(dst) for _, dst in g] for _, g in groups]
    assert sorted(sum(members, [])) == list(range(len(boxes)))
    assert all(m == sorted(m) for m in members)
    # 0, 2 and 3 overlap in a chain; box 4 lies beyond their joint box (x 0..22), box 1 far away
    assert sorted(map(sorted, members)) == [[0, 2, 3], [1], [4]]


def test_a_box_inside_a_merged_group_joins_it():
    # A and B overlap; C touches neither but lies inside their joint box, so blending that box
    # would otherwise overwrite C
    boxes = [Box(20, 0, 28, 5), Box(0, 0, 10, 10), Box(8, 8, 30, 30)]
    groups = disjoint_groups([(np.zeros((1, 1, 4), np.uint8), b) for b in boxes])
    assert len(groups) == 1 and groups[0][0] == Box(0, 0, 30, 30)
    assert [dst for _, dst in groups[0][1]] == boxes  # draw order kept


def full_frame_yuv_reference(i420, layers, matrix="bt601"):
    """The same expression in Y'CbCr over whole-frame float planes, every layer on a frame-sized
    canvas, rounded once: luma a * fg + (1 - a) * y per pixel, chroma from the 2x2-block means
    of a and a * fg, with a * fg = M (a * rgb) + a * offset."""
    y, cb, cr = planes(i420)
    h, w = y.shape
    luma = y.astype(np.float32)
    chroma = np.stack([cb, cr], axis=-1).astype(np.float32)
    mask = np.zeros((h, w), np.uint8)
    to_ycc = ycbcr_matrix(matrix)
    for layer in layers:
        lh, lw = layer.rgba.shape[:2]
        src, dst = visible_part(layer.x, layer.y, lw, lh, w, h)
        if dst.empty:
            continue
        patch = layer.rgba[src.y1 : src.y2, src.x1 : src.x2]
        a = np.zeros((h, w), np.float32)
        pm = np.zeros((h, w, 3), np.float32)
        a[dst.y1 : dst.y2, dst.x1 : dst.x2], pm[dst.y1 : dst.y2, dst.x1 : dst.x2] = premultiplied(patch)
        luma = cv2.transform(pm, to_ycc[:1, :3]) + to_ycc[0, 3] * a + luma * (np.float32(1.0) - a)
        block_a = half(a)[..., None]
        chroma = (
            cv2.transform(half(pm), to_ycc[1:, :3]) + to_ycc[1:, 3] * block_a + chroma * (np.float32(1.0) - block_a)
        )
        mask[dst.y1 : dst.y2, dst.x1 : dst.x2][patch[..., 3] > 0] = 255
    out = np.empty_like(i420)
    oy, ocb, ocr = planes(out)
    oy[:] = np.rint(luma)
    ocb[:] = np.rint(chroma[..., 0])
    ocr[:] = np.rint(chroma[..., 1])
    return out, mask


def test_yuv_region_blending_is_bit_identical_to_whole_frame_yuv_blending():
    rng = np.random.default_rng(1)
    for trial in range(40):
        matrix = ("bt601", "bt709")[trial % 2]
        frame = rgb_to_i420(rng.integers(0, 256, (90, 160, 3), dtype=np.uint8), matrix)
        layers = random_layers(rng, int(rng.integers(0, 9)), 160, 90)
        hud, mask = YuvCompositor(matrix)(frame, layers)
        ref_hud, ref_mask = full_frame_yuv_reference(frame, layers, matrix)
        assert np.array_equal(hud, ref_hud), trial
        assert np.array_equal(mask, ref_mask), trial


def test_yuv_compositing_leaves_uncovered_pixels_alone_and_matches_rgb_compositing_inside():
    rng = np.random.default_rng(2)
    covered = 0
    for trial in range(20):
        # smooth content, as video is: a 4:2:0 round trip of noise would dominate the comparison
        rgb = cv2.resize(rng.integers(0, 256, (9, 16, 3), dtype=np.uint8), (160, 90), interpolation=cv2.INTER_LINEAR)
        frame = rgb_to_i420(rgb)
        layers = random_layers(rng, int(rng.integers(1, 9)), 160, 90)
        hud, mask = YuvCompositor()(frame, layers)
        rgb_hud, rgb_mask = Compositor("cpu")(i420_to_rgb(frame), layers)
        assert np.array_equal(mask, rgb_mask)
        (y, cb, cr), (y0, cb0, cr0) = planes(hud), planes(frame)
        assert np.array_equal(y[mask == 0], y0[mask == 0])  # luma: bit for bit outside the mask
        touched = mask.reshape(45, 2, 80, 2).max(axis=(1, 3)) > 0
        assert np.array_equal(cb[~touched], cb0[~touched]) and np.array_equal(cr[~touched], cr0[~touched])
        # inside: the RGB compositor's result converted to I420, up to the round trip's rounding
        ref_y = planes(rgb_to_i420(rgb_hud))[0].astype(int)
        assert np.abs(y.astype(int) - ref_y)[mask > 0].max() <= 3, trial
        covered += int(mask.any())
    assert covered > 10
