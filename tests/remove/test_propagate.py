"""Flow-guided propagation: only the hole changes, and a panning scene is restored from other frames."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from g2w.cases.case import load_cases
from g2w.remove import METHODS, run_method
from g2w.remove.masks import raw_masks
from g2w.remove.propagate import NO_CHECK, RimCheck, fill_chunk
from g2w.remove.propagate.run import frames_and_holes
from g2w.segment.mask_rules import REMOVAL_RULES
from g2w.segment.predict import Segmenter, full_mask
from g2w.video import VideoWriter, iter_frames, probe, read_masks


def _panning_scene(frames: int = 24, step: int = 4):
    """A textured world panning right under a static opaque widget: (clean, hud, hole) frames."""
    rng = np.random.default_rng(0)
    world = cv2.GaussianBlur(rng.integers(0, 255, (160, 400, 3)).astype(np.uint8), (0, 0), 3)
    world = cv2.normalize(world, None, 0, 255, cv2.NORM_MINMAX)
    clean = [np.ascontiguousarray(world[20:140, step * t : step * t + 200]) for t in range(frames)]
    hole = np.zeros((120, 200), np.uint8)
    hole[40:80, 80:120] = 255
    hud = [f.copy() for f in clean]
    for f in hud:
        f[hole > 0] = (255, 40, 40)
    return clean, hud, hole


def _error(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float32) - b.astype(np.float32))[where].mean())


def test_only_hole_pixels_change():
    clean, hud, hole = _panning_scene()
    holes = [hole] * len(hud)
    holes[3] = np.zeros_like(hole)  # a frame without UI passes through untouched
    out = fill_chunk(hud, holes)
    for t, (o, h, m) in enumerate(zip(out, hud, holes)):
        assert np.array_equal(o[m == 0], h[m == 0]), t
    assert np.array_equal(out[3], hud[3])
    assert all(not np.array_equal(o[hole > 0], h[hole > 0]) for o, h, m in zip(out, hud, holes) if m.any())


def test_emitted_frames_are_the_filled_ones_in_order_with_several_crops():
    clean, hud, hole = _panning_scene(frames=12)
    two = hole.copy()
    two[40:80, 80:120] = 0
    two[10:30, 10:40] = two[90:110, 150:190] = 255  # two widgets far apart: two crops
    holes = [two] * len(hud)
    holes[5] = np.zeros_like(two)
    emitted = []
    out = fill_chunk(hud, holes, margin=8, emit=emitted.append)
    assert len(emitted) == len(out) and all(e is o for e, o in zip(emitted, out))
    plain = fill_chunk(hud, holes, margin=8)
    assert all(np.array_equal(a, b) for a, b in zip(out, plain))
    assert all(not np.array_equal(o[m > 0], h[m > 0]) for o, h, m in zip(out, hud, holes) if m.any())


def test_panning_scene_is_restored_from_other_frames_far_better_than_telea():
    clean, hud, hole = _panning_scene()
    out = fill_chunk(hud, [hole] * len(hud))
    inside = hole > 0
    propagated = np.mean([_error(o, c, inside) for o, c in zip(out, clean)])
    telea = np.mean([_error(cv2.inpaint(h, hole, 3, cv2.INPAINT_TELEA), c, inside) for h, c in zip(hud, clean)])
    assert propagated < 0.25 * telea
    assert propagated < 5


def test_world_never_visible_falls_back_to_spatial_fill():
    clean, hud, hole = _panning_scene(step=0)  # a still camera: the world behind is never seen
    out = fill_chunk(hud, [hole] * len(hud))
    inside = hole > 0
    assert all(_error(o, h, inside) > 50 for o, h in zip(out, hud))  # the red widget is gone
    assert all(np.abs(o[inside].astype(int) - (255, 40, 40)).sum(-1).min() > 30 for o in out)


def test_a_hole_whose_ring_is_mispredicted_is_filled_by_telea_instead():
    """A world with no temporal coherence (fresh texture every frame): flow carries nothing true,
    so the ring around the hole is predicted badly from the other frames and the whole hole gets
    Telea's fill; without the check it gets the (wrong) propagated pixels."""
    rng = np.random.default_rng(1)
    hole = np.zeros((120, 200), np.uint8)
    hole[40:80, 80:120] = 255
    hud = []
    for _ in range(12):
        f = cv2.GaussianBlur(rng.integers(0, 255, (120, 200, 3)).astype(np.uint8), (0, 0), 2)
        f = cv2.normalize(f, None, 0, 255, cv2.NORM_MINMAX)
        f[hole > 0] = (255, 40, 40)
        hud.append(f)
    checked = fill_chunk(hud, [hole] * len(hud), check=RimCheck())
    plain = fill_chunk(hud, [hole] * len(hud), check=NO_CHECK)
    box = (slice(40 - 8, 80 + 8), slice(80 - 8, 120 + 8))  # the hole's box, padded like the fill pads it
    inside = hole[box] > 0
    for c, p, h in zip(checked, plain, hud):
        telea = cv2.inpaint(np.ascontiguousarray(h[box]), hole[box], 3, cv2.INPAINT_TELEA)
        assert np.array_equal(c[box][inside], telea[inside])
    assert sum(not np.array_equal(p[box][inside], c[box][inside]) for p, c in zip(plain, checked)) >= 10


def test_the_check_keeps_a_correct_propagation():
    """On the panning scene the ring is predicted well, so the check changes nothing."""
    clean, hud, hole = _panning_scene()
    checked = fill_chunk(hud, [hole] * len(hud), check=RimCheck(max_steps=None))
    plain = fill_chunk(hud, [hole] * len(hud), check=NO_CHECK)
    assert all(np.array_equal(c, p) for c, p in zip(checked, plain))


def test_a_hole_in_a_plain_surface_is_filled_by_telea_and_a_textured_one_is_not():
    """A plain wall panning under the widget: its ring's luma std is about 1, under the level, so
    the hole gets Telea's fill although the ring is predicted well; with the level at 0 it keeps
    the propagated pixels. The textured panning scene (ring std far above 10) keeps them too."""
    rng = np.random.default_rng(2)
    ramp = np.linspace(90, 110, 400, dtype=np.float32)[None, :, None]
    noise = cv2.GaussianBlur(rng.normal(0, 6, (160, 400, 3)).astype(np.float32), (0, 0), 2)
    wall = np.clip(ramp + noise, 0, 255).astype(np.uint8)
    hole = np.zeros((120, 200), np.uint8)
    hole[40:80, 80:120] = 255
    hud = [np.ascontiguousarray(wall[20:140, 4 * t : 4 * t + 200]) for t in range(12)]
    for f in hud:
        f[hole > 0] = (255, 40, 40)
    plain_rule = fill_chunk(hud, [hole] * len(hud), check=RimCheck())
    no_rule = fill_chunk(hud, [hole] * len(hud), check=RimCheck(smooth_std=0.0))
    box = (slice(40 - 8, 80 + 8), slice(80 - 8, 120 + 8))
    inside = hole[box] > 0
    for c, h in zip(plain_rule, hud):
        telea = cv2.inpaint(np.ascontiguousarray(h[box]), hole[box], 3, cv2.INPAINT_TELEA)
        assert np.array_equal(c[box][inside], telea[inside])
    assert sum(not np.array_equal(p[box][inside], c[box][inside]) for p, c in zip(no_rule, plain_rule)) >= 10
    clean, textured, hole = _panning_scene()
    assert all(
        np.array_equal(a, b)
        for a, b in zip(
            fill_chunk(textured, [hole] * len(textured), check=RimCheck()),
            fill_chunk(textured, [hole] * len(textured), check=RimCheck(smooth_std=0.0)),
        )
    )


def test_traces_longer_than_the_cap_count_as_unreached():
    """Panning 4 px a frame under a 40 px widget, the hole's middle is 5 frames from being seen:
    with a 2-frame cap it is left to Telea (far worse there), with no cap it is propagated."""
    clean, hud, hole = _panning_scene()
    inside = hole > 0
    capped = fill_chunk(hud, [hole] * len(hud), check=RimCheck(ring_px=0, max_steps=2))
    free = fill_chunk(hud, [hole] * len(hud), check=NO_CHECK)
    err_capped = np.mean([_error(o, c, inside) for o, c in zip(capped, clean)])
    err_free = np.mean([_error(o, c, inside) for o, c in zip(free, clean)])
    assert err_capped > 2 * err_free


@pytest.mark.parametrize("method", ["propagate", "telea"])
def test_methods_with_the_ground_truth_mask_write_every_frame(synth_out, tmp_path, method):
    assert not METHODS[method].mask  # mask-free by default; mask="gt" makes them oracles
    case = load_cases(synth_out)[0]
    out = tmp_path / f"{method}.mp4"
    frames = run_method(method, case, str(out), mask="gt")
    assert frames == probe(case.source).frame_count == probe(str(out)).frame_count
    masks = read_masks(case.mask)
    edited = [f.rgb for f in iter_frames(str(out))]
    source = [f.rgb for f in iter_frames(case.source)]
    plain = tmp_path / "plain.mp4"  # what re-encoding alone changes: the same write path, nothing filled
    with VideoWriter(str(plain), *source[0].shape[1::-1], probe(case.source).fps, crf=18, preset="veryfast") as w:
        for frame in source:
            w.write(frame)
    reencoded = [f.rgb for f in iter_frames(str(plain))]
    far = [cv2.dilate(m, np.ones((15, 15), np.uint8)) == 0 for m in masks]
    # away from the UI only the re-encode differs; inside, the widget is gone
    assert (
        np.mean([_error(e, s, f) for e, s, f in zip(edited, source, far)])
        < np.mean([_error(r, s, f) for r, s, f in zip(reencoded, source, far)]) + 0.5
    )
    assert np.mean([_error(e, s, m > 0) for e, s, m in zip(edited, source, masks)]) > 10


def test_a_large_never_visible_hole_is_filled_at_low_resolution_and_only_there():
    rng = np.random.default_rng(1)
    world = cv2.GaussianBlur(rng.integers(0, 255, (240, 400, 3)).astype(np.uint8), (0, 0), 6)
    hole = np.zeros((240, 400), np.uint8)
    hole[60:180, 100:300] = 255  # 24,000 px, never visible (still camera): Telea at a quarter size
    hud = [world.copy() for _ in range(6)]
    for f in hud:
        f[hole > 0] = (255, 40, 40)
    out = fill_chunk(hud, [hole] * len(hud))
    inside = hole > 0
    for o, h in zip(out, hud):
        assert np.array_equal(o[~inside], h[~inside])
        assert np.abs(o[inside].astype(int) - (255, 40, 40)).sum(-1).min() > 30  # no UI colour left
        assert _error(o, world, inside) < 40  # a smooth fill from the surroundings, not noise


@pytest.fixture(scope="module")
def segmenter_removal(synth_out):
    """The first case and its default segmenter removal masks (before dilation), computed once."""
    case = load_cases(synth_out)[0]
    return case, list(raw_masks(case, "segmenter"))


def test_the_default_segmenter_mask_is_the_one_detect_writes_with_its_still_detail(segmenter_removal):
    """Removal and `g2w detect` see the same UI: near it, the checkpoint's full-resolution step
    decides, not the model-resolution probability upsampled; the removal mask then adds the
    still detail touching what detect found, and only that."""
    case, removal = segmenter_removal
    info = probe(case.source)
    segmenter = Segmenter(threads=1, full_res=True)
    assert segmenter.refiner is not None
    predictions = list(segmenter.frames(case.source))
    detected = [full_mask(p, info.width, info.height) for p in predictions]
    upsampled = [full_mask(replace(p, full_res=None), info.width, info.height) for p in predictions]
    assert len(removal) == info.frame_count
    assert all(
        np.array_equal(r, full_mask(p, info.width, info.height, rules=REMOVAL_RULES))
        for r, p in zip(removal, predictions)
    )
    assert all(np.array_equal(r, p.full_res.still.join(d)) for r, d, p in zip(removal, detected, predictions))
    assert all(((r > 0) | (d == 0)).all() for r, d in zip(removal, detected))  # detect's mask is inside
    assert any(not np.array_equal(r, u) for r, u in zip(removal, upsampled))
    plain = list(raw_masks(case, "segmenter", rules="centre_mark"))  # detect's rules: exactly detect's mask
    assert all(np.array_equal(r, d) for r, d in zip(plain, detected))


def test_hole_only_sweep_equals_remapping_the_whole_crop():
    """`sweep` traces only the hole's pixels; it must give exactly what remapping every crop
    pixel's state through the flow gives there (the dense pass it replaced)."""
    from g2w.remove.propagate.flow import Crop
    from g2w.remove.propagate.trace import FAR, sweep

    rng = np.random.default_rng(3)
    h, w, n = 60, 80, 6
    crop = Crop(np.ones((h, w), np.uint8), 1000)
    holes = []
    for t in range(n):
        hole = np.zeros((h, w), np.uint8)
        hole[20 + t : 40 + t, 25 : 55 - t] = 255
        holes.append(hole)
    shift = np.array([3.3, -1.7], np.float32)  # a pan with noise: some traces leave the crop
    maps = [crop.grid + rng.normal(0, 2.5, (h, w, 2)).astype(np.float32) + shift for _ in range(n)]
    fast = sweep(crop, [np.flatnonzero(x) for x in holes], maps, range(n))
    prev = None
    for t in range(n):  # the dense pass: every crop pixel's (source, x, y, steps) remapped
        hole = holes[t] > 0
        src = np.where(hole, -1, t).astype(np.float32)
        sx, sy = crop.grid[..., 0].copy(), crop.grid[..., 1].copy()
        dist = np.where(hole, FAR, 0).astype(np.float32)
        if prev is not None:
            mx, my = maps[t][..., 0], maps[t][..., 1]
            p_src, p_x, p_y, p_dist = prev
            known = cv2.remap((p_src >= 0).astype(np.float32), mx, my, cv2.INTER_LINEAR, borderValue=0)
            n_src = cv2.remap(p_src, mx, my, cv2.INTER_NEAREST, borderValue=-1)
            n_x = cv2.remap(p_x, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            n_y = cv2.remap(p_y, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            n_dist = cv2.remap(p_dist, mx, my, cv2.INTER_NEAREST, borderValue=float(FAR))
            ok = hole & (known > 0.99) & (n_src >= 0)
            src[ok], sx[ok], sy[ok], dist[ok] = n_src[ok], n_x[ok], n_y[ok], n_dist[ok] + 1
        prev = (src, sx, sy, dist)
        idx = np.flatnonzero(hole)
        for dense, sparse in zip(prev, fast[t]):
            assert np.array_equal(dense.ravel()[idx], sparse), t
    assert (fast[-1][0] >= 0).any() and (fast[-1][3] > 1).any()  # some pixels were traced several steps


def test_the_segmenter_sharing_the_fills_decode_gives_the_same_frames_and_masks(segmenter_removal):
    """Mask-free propagate decodes once and hands each frame to both the segmenter and the fill;
    the pairs must equal a separate decode's frames and the segmenter's own-decode masks, in
    order, even with queues shallower than the segmenter's lookahead (no stall)."""
    case, own = segmenter_removal  # dilate_px=0 below: holes are these masks, binarised
    source = [f.rgb for f in iter_frames(case.source)]
    shared = list(frames_and_holes(case, "segmenter", 0, None, depth=1))
    assert len(shared) == len(own) == len(source) == probe(case.source).frame_count
    assert all(np.array_equal(f, s) for (f, _), s in zip(shared, source))
    assert all(np.array_equal(h, o) for (_, h), o in zip(shared, own))
    assert any(h.any() for h in own)  # the case has UI: the masks compared are not all empty
