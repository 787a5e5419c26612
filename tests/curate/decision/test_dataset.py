"""Labels of the training windows: sample sidecar spans and the synthetic defects."""

import cv2
import numpy as np

from g2w.curate.decision.dataset import window_label
from g2w.curate.decision.perturb import DEFECTS, LABELS, RELIT_LUMA, apply_defect, jitter, relight


def _sidecar(**spans):
    kinds = ("frozen", "dark", "blur", "shaky")
    return {"cuts": spans.pop("cuts", []), **{f"{k}_spans": spans.get(k, []) for k in kinds}}


def test_a_sample_window_takes_the_defect_that_covers_most_of_it():
    sidecar = _sidecar(dark=[{"start_s": 4.0, "end_s": 11.5}])
    assert window_label(sidecar, 5.0, 10.0) == "too_dark"
    assert window_label(sidecar, 0.0, 5.0) is None  # a fifth of it: ambiguous, left out
    assert window_label(sidecar, 15.0, 20.0) == "accept"
    assert window_label(_sidecar(cuts=[{"time_s": 17.0}]), 15.0, 20.0) is None


def _frames(n=12, h=72, w=128):
    rng = np.random.default_rng(0)
    base = (rng.random((h, w, 3)) * 255).astype(np.uint8)
    return [np.roll(base, 2 * k, axis=1) for k in range(n)]


def test_each_defect_changes_the_window_the_way_its_label_says():
    frames, rng = _frames(), np.random.default_rng(1)
    out = {d: apply_defect(frames, d, rng) for d in DEFECTS}
    assert all(len(v) == len(frames) for v in out.values())
    assert np.mean(out["too_dark"][-1]) < 0.2 * np.mean(frames[-1])
    assert all(np.array_equal(f, out["frozen"][-1]) for f in out["frozen"][len(frames) // 3 :])
    lap = [np.var(np.diff(f.astype(float), axis=1)) for f in (frames[0], out["blurry"][0])]
    assert lap[1] < 0.5 * lap[0]
    assert not np.array_equal(out["shaky"][3], jitter(frames[3], 0.0, 0.0))


def test_jitter_by_nothing_only_zooms():
    f = _frames(1)[0]
    assert jitter(f, 0.0, 0.0).shape == f.shape


def test_relighting_moves_the_exposure_into_the_lit_range_and_keeps_the_picture():
    dark = [(f // 5).astype(np.uint8) for f in _frames()]  # a dim capture, mean luma about 25
    rng = np.random.default_rng(2)
    for _ in range(6):
        lit = relight(dark, rng)
        assert RELIT_LUMA[0] - 15 <= np.mean(lit) <= RELIT_LUMA[1] + 15
        assert np.corrcoef(lit[0].ravel(), dark[0].ravel())[0, 1] > 0.9
    assert apply_defect(dark, "accept", rng) is dark


def test_a_fade_darkens_most_of_the_window_at_one_end():
    frames = _frames(n=40)
    rng = np.random.default_rng(3)
    for _ in range(6):
        out = apply_defect(frames, "fade", rng)
        dim = np.array([np.mean(o) < 0.15 * np.mean(f) for o, f in zip(out, frames)])
        assert 0.3 <= dim.mean() <= 0.9
        assert dim[0] != dim[-1] and np.count_nonzero(np.diff(dim.astype(int))) == 1  # lit, then dark (or back)
    assert LABELS["fade"] == "too_dark"


def test_a_dark_still_window_is_held_and_dark_and_labelled_dark():
    frames = _frames(n=30)
    out = apply_defect(frames, "dark_still", np.random.default_rng(4))
    assert all(np.array_equal(f, out[-1]) for f in out[len(frames) // 3 :])
    assert np.mean(out[-1]) < 0.2 * np.mean(frames[-1])
    assert LABELS["dark_still"] == "too_dark"


def test_flat_shading_removes_texture_and_keeps_edges():
    rng = np.random.default_rng(5)
    h, w = 720, 1280
    frame = np.full((h, w, 3), 60, np.uint8)
    frame[:, w // 2 :] = 190  # one edge between two large regions
    frame = np.clip(frame + rng.normal(0, 10, (h, w, 3)), 0, 255).astype(np.uint8)  # fine texture
    flat = apply_defect([frame], "flat", rng)[0]
    lap = [np.var(cv2.Laplacian(f[..., 0], cv2.CV_32F)) for f in (frame, flat)]
    assert lap[1] < 0.2 * lap[0]
    profile = flat[..., 0].mean(axis=0)  # across the edge, noise averaged out down the rows
    assert profile[w // 2] - profile[w // 2 - 1] > 80  # most of the edge's 130 in one pixel (a blur: 20)
    assert LABELS["flat"] == "accept"
