"""Blending only the layers' boxes gives exactly what blending the whole frame gives."""

import numpy as np

from g2w.hud.composite import Compositor, disjoint_groups
from g2w.hud.layers import Layer
from g2w.hud.patches import visible_part
from g2w.types import Box


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
