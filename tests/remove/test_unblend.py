"""Un-blending a static translucent layer: the world behind comes back exactly, and nothing else changes."""

import cv2
import numpy as np
import pytest

from g2w.cases.case import load_cases
from g2w.jobs.remove import remove_one
from g2w.remove import DEFAULT_METHOD, run_method
from g2w.remove.propagate import fill_chunk
from g2w.remove.unblend import Unblend, fit_layer, unblend_chunk
from g2w.video import probe


def _band_scene(frames=30, step=4, alpha=0.5, colour=(20, 30, 90), speed=0, size=(150, 240)):
    """A textured world panning `step` px a frame under a translucent band (opacity `alpha`,
    colour `colour`) that moves `speed` px a frame: (clean, blended, holes)."""
    h, w = size
    rng = np.random.default_rng(0)
    world = cv2.GaussianBlur(rng.integers(0, 255, (h + 50, w + 160 + step * frames, 3)).astype(np.uint8), (0, 0), 2)
    world = cv2.normalize(world, None, 0, 255, cv2.NORM_MINMAX)
    clean = [np.ascontiguousarray(world[20 : 20 + h, step * t : step * t + w]) for t in range(frames)]
    blended, holes = [], []
    for t, c in enumerate(clean):
        hole = np.zeros((h, w), np.uint8)
        x0 = (w // 4 + speed * t) % w
        hole[int(h * 0.66) : int(h * 0.86), x0 : x0 + w // 2] = 255
        a = (hole > 0).astype(np.float32)[..., None] * alpha
        blended.append((a * np.float32(colour) + (1 - a) * c).round().astype(np.uint8))
        holes.append(hole)
    return clean, blended, holes


def _psnr(a, b, where) -> float:
    d = (a.astype(np.float32) - b.astype(np.float32))[where]
    return float(10 * np.log10(255**2 / max(float((d**2).mean()), 1e-9)))


def _run(blended, holes, rule=Unblend()):
    steps = []
    filled = fill_chunk(blended, holes, steps=steps)
    out, report = unblend_chunk(blended, holes, filled, steps, rule)
    return filled, out, report


@pytest.mark.parametrize("alpha", [0.3, 0.5])
def test_a_static_translucent_band_is_recovered_within_quantisation(alpha):
    clean, blended, holes = _band_scene(alpha=alpha)
    filled, out, report = _run(blended, holes)
    inside = holes[0] > 0
    recovered = np.mean([_psnr(o, c, inside) for o, c in zip(out, clean)])
    propagated = np.mean([_psnr(f, c, inside) for f, c in zip(filled, clean)])
    assert recovered >= 40, (recovered, report.reason())
    assert recovered > propagated + 10  # inverted, not guessed
    assert report.inverted_px >= 0.99 * report.hole_px


def test_the_fit_finds_opacity_and_colour_from_a_moving_world():
    rng = np.random.default_rng(1)
    world = rng.uniform(0, 255, (50, 40, 3)).astype(np.float32)
    observed = 0.6 * world + 0.4 * np.float32([200, 100, 50])
    observed[:, :5] += 80  # a few frames the fill got wrong must not bend the fit
    s, b, residual, spread = fit_layer(observed, world, np.ones((50, 40), bool))
    assert np.allclose(s, 0.6, atol=0.02) and np.allclose(b / (1 - s[:, None]), [200, 100, 50], atol=6)
    assert spread.min() > 50


def test_a_moving_translucent_element_is_left_to_the_fill():
    clean, blended, holes = _band_scene(speed=9)
    filled, out, report = _run(blended, holes)
    assert report.inverted_px == 0 and report.moving_px == report.hole_px
    assert all(o is f for o, f in zip(out, filled))


def test_an_opaque_widget_is_left_to_the_fill():
    clean, blended, holes = _band_scene(alpha=0.95)
    filled, out, report = _run(blended, holes)
    assert report.opaque_px > 0 and report.inverted_px == 0  # too opaque to invert (or no fixed blend left to see)
    assert all(np.array_equal(o, f) for o, f in zip(out, filled))


@pytest.mark.parametrize(
    "scene, reason",
    [
        ({"step": 0}, "unseen_px"),  # a fully static video: the world behind the layer is never seen
        ({"frames": 5}, "unseen_px"),  # shorter than the fit needs
        ({"size": (320, 180)}, None),  # portrait
    ],
)
def test_hard_chunks_keep_every_pixel_outside_the_mask_and_say_why_inside(scene, reason):
    clean, blended, holes = _band_scene(**scene)
    filled, out, report = _run(blended, holes)
    for o, b, h in zip(out, blended, holes):
        assert np.array_equal(o[h == 0], b[h == 0])  # bit-identical outside the hole
    if reason:
        assert getattr(report, reason) == report.hole_px and report.inverted_px == 0
        assert all(np.array_equal(o, f) for o, f in zip(out, filled))


def test_a_one_pixel_video_and_an_empty_chunk_pass_through():
    frames = [np.full((1, 1, 3), 7, np.uint8)] * 12
    holes = [np.full((1, 1), 255, np.uint8)] * 12
    _, out, report = _run(frames, holes)
    assert report.inverted_px == 0 and all(o.shape == (1, 1, 3) for o in out)
    assert unblend_chunk([], [], [], [])[0] == []


def test_unblend_propagate_is_the_default_and_runs_on_a_case(synth_out, tmp_path):
    assert DEFAULT_METHOD == "unblend+propagate"
    case = load_cases(synth_out)[0]
    out = tmp_path / "edit.mp4"
    assert run_method(DEFAULT_METHOD, case, str(out), mask="gt") == probe(case.source).frame_count
    assert probe(str(out)).frame_count == probe(case.source).frame_count


def test_a_corrupt_clip_gives_an_error_row(synth_out, tmp_path):
    case = load_cases(synth_out)[0]
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(open(case.source, "rb").read()[:2000])
    broken = type(case).from_json(case.to_json().replace(case.source, str(bad)))
    row = remove_one(DEFAULT_METHOD, broken, str(tmp_path / "out"), {"mask": "gt"})
    assert row["status"] == "error" and row["reason"]
