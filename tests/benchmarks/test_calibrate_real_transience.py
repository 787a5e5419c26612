"""The calibration's transience cue (does the view before a step come back within a few frames?):
measured, not adopted (README "Calibration"). On a still, textured view a painted flash comes back
and a cut does not."""

import importlib.util
import os

import cv2
import numpy as np

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "calibrate_real_curation.py")


def _bench():
    spec = importlib.util.spec_from_file_location("calibrate_real_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _view(seed: int) -> np.ndarray:
    """A 160x90 luma view of fine, game-like detail."""
    noise = np.random.default_rng(seed).integers(0, 256, (90, 160)).astype(np.float32)
    return np.clip(cv2.GaussianBlur(noise, (0, 0), 0.8) * 2 - 128, 0, 255).astype(np.uint8)


def test_a_flash_on_a_still_view_comes_back_and_a_cut_does_not():
    bench = _bench()
    a, b = _view(1), _view(2)
    noise = np.random.default_rng(0)
    frames = [a] * 10 + [cv2.convertScaleAbs(a, alpha=0.5, beta=120)] * 3 + [a] * 7 + [b] * 20  # flash 10-12, cut 20
    frames = [np.clip(f + noise.normal(0, 2, f.shape), 0, 255).astype(np.uint8) for f in frames]
    video = {"frames": {"blocks": frames}}
    step, back, step_detail, back_detail, k = bench.transience(video, 10)
    assert back <= 0.05 and back_detail >= 0.8  # the view before the flash is found again ...
    assert k >= 1
    _, back, _, back_detail, _ = bench.transience(video, 20)
    assert back >= 0.8 and back_detail <= 0.1  # ... the view before the cut is not
    assert bench.transience(video, 39) is None  # no frame after the last step: nothing to measure
