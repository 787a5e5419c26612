"""World-anchored elements and small crosshairs: tracked positions, exact masks, replay, shapes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from g2w.hud.anchored import AnchorTracker, element_patch, placement, plan_anchored
from g2w.hud.annotate import annotate_record
from g2w.hud.composite import Compositor
from g2w.hud.crosshairs import SHAPES, crosshair_patch
from g2w.hud.layers import LayerSource
from g2w.hud.plan import plan_sample
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams

from .conftest import gameplay_frames
from .test_text_blocks import reference, union_mask

W, H, N = 320, 240, 20


def _textured_pan(shift: tuple[int, int]) -> list[np.ndarray]:
    """Frames of one random texture translated by `shift` px per frame (a known world motion)."""
    rng = np.random.default_rng(0)
    big = cv2.GaussianBlur(rng.integers(0, 255, (H * 3, W * 3), np.uint8), (0, 0), 2.0)
    big = cv2.normalize(big, None, 0, 255, cv2.NORM_MINMAX)
    dx, dy = shift
    return [big[H - k * dy : 2 * H - k * dy, W - k * dx : 2 * W - k * dx].copy() for k in range(N)]


def _plan(kinds=("name_tag",)) -> dict:
    for seed in range(200):
        plan = plan_anchored(SeedStreams(seed), W, H, 30.0, N, 8)
        if all(any(e["kind"] == k for e in plan["elements"]) for k in kinds):
            return plan
    raise AssertionError(f"no plan with {kinds}")


@pytest.mark.parametrize("shift", [(3, 0), (-2, 2), (0, 0)])
def test_anchored_point_moves_with_the_world(shift):
    plan = _plan(("name_tag", "marker"))
    lumas = _textured_pan(shift)
    tracker = AnchorTracker(plan, W, H, N)
    for i, luma in enumerate(lumas):
        tracker.step(i, luma)
    for el in plan["elements"]:
        if el["kind"] == "damage":
            continue
        track = plan["tracks"][el["id"]]
        pts = [(k, p) for k, p in enumerate(track) if p is not None]
        assert len(pts) >= N // 2
        for (k0, p0), (k1, p1) in zip(pts, pts[1:]):
            if k1 == k0 + 1:  # consecutive tracked frames move by the world's shift
                assert abs(p1[0] - p0[0] - shift[0]) <= 1.0 and abs(p1[1] - p0[1] - shift[1]) <= 1.0


def test_tracking_needs_frames_in_order():
    plan = _plan()
    tracker = AnchorTracker(plan, W, H, N)
    with pytest.raises(ValueError, match="frame order"):
        tracker.step(3, _textured_pan((1, 0))[0])


def test_drawn_element_sits_at_its_tracked_point_and_the_mask_is_exact(library):
    profile = SynthProfile.tiny(width=W, height=H, duration_s=N / 30)
    for seed in range(100):
        rec = plan_sample(SeedStreams(seed), profile, library)
        if rec["anchored"]["elements"]:
            break
    lumas = _textured_pan((2, 1))
    frames = [np.dstack([lu] * 3) for lu in lumas]
    source = LayerSource(rec, library.image)
    compositor = Compositor("cpu")
    drawn = 0
    for i in range(N):
        layers = source.frame(i, lumas[i])
        hud, mask = compositor(frames[i], layers)
        assert np.array_equal(mask, union_mask(layers, W, H))
        assert np.array_equal(hud, reference(frames[i], layers))
        by_id = {la.instance: la for la in layers}
        for el in rec["anchored"]["elements"]:
            point = rec["anchored"]["tracks"][el["id"]][i]
            live = el["start_frame"] <= i < el["end_frame"] and point is not None
            assert el["id"] not in by_id or live  # drawn only while live and tracked
            if live and el["id"] in by_id:
                la = by_id[el["id"]]
                x, y, _ = placement(el, point, i, la.rgba.shape[1], la.rgba.shape[0])
                assert (la.x, la.y) == (round(x), round(y))
                drawn += 1
    assert drawn > 0
    # the rendered record replays its tracks without the clip, to the same annotation
    first = annotate_record(rec, library.image)
    assert first == annotate_record(rec, library.image)
    assert any(inst["label"] == "world_context" and inst["id"].startswith("a_") for inst in first["instances"])


def test_without_a_clip_nothing_is_anchored(library):
    rec = plan_sample(SeedStreams(2), SynthProfile.tiny(), library)
    source = LayerSource(rec, library.image)
    assert not any(la.instance.startswith("a_") for i in range(5) for la in source.frame(i))


def test_element_patches_and_damage_numbers_rise_and_fade():
    plan = _plan(("marker",))
    for el in plan["elements"]:
        p = element_patch(el)
        assert p.ndim == 3 and p.shape[2] == 4 and p[..., 3].any()
    dmg = {"kind": "damage", "start_frame": 0, "life": 10, "rise": 20, "drift": 4}
    ys = [placement(dmg, (100, 100), k, 10, 10)[1] for k in range(10)]
    fades = [placement(dmg, (100, 100), k, 10, 10)[2] for k in range(10)]
    assert ys == sorted(ys, reverse=True) and fades[0] == 1.0 and fades[-1] < 0.5


@pytest.mark.parametrize("shape", SHAPES)
def test_small_crosshairs_are_small_and_centred(shape):
    spec = {"shape": shape, "size": 11, "thickness": 1, "color": [0, 255, 0], "outline": True}
    p = crosshair_patch(spec)
    assert p.shape[:2] == (13, 13) and p[..., 3].any()
    ys, xs = np.nonzero(p[..., 3])
    assert abs((xs.min() + xs.max()) / 2 - 6) <= 1.5


def test_small_crosshair_replaces_the_asset_at_the_same_centre(library):
    frames = gameplay_frames(320, 180, 2)
    for seed in range(200):
        rec = plan_sample(SeedStreams(seed), SynthProfile.tiny(), library)
        wd = next((w for w in rec["persistent"] if w["label"] == "crosshair" and "crosshair" in w), None)
        if wd is not None:
            break
    assert wd["asset_id"] is None and wd["asset_source"] == "procedural_crosshair" and wd["replaced_asset"]
    layer = next(la for la in LayerSource(rec, library.image).frame(0) if la.instance == wd["id"])
    assert layer.rgba.shape[:2] == (wd["size"][1], wd["size"][0]) and max(wd["size"]) <= 0.03 * 320
    Compositor("cpu")(frames[0], [layer])
