import av
import cv2
import numpy as np

from g2w.curate.cuts import CutDetector, luma_thumb
from g2w.sample_data.textures import colorize, tileable_noise


def _frame(rgb: np.ndarray) -> av.VideoFrame:
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")


def _world(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return colorize(tileable_noise(rng, size[0], size[1], 8, 4), tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3)))


def _run(frames) -> list[bool]:
    detector = CutDetector()
    return [detector.step(luma_thumb(_frame(f)))[0] for f in frames]


def test_a_pan_is_not_a_cut_but_a_switch_of_world_is():
    a, b = _world(1), _world(2)
    frames = [a[:, 6 * i : 6 * i + 640] for i in range(30)] + [b[:, 6 * i : 6 * i + 640] for i in range(30)]
    cuts = _run(frames)
    assert cuts[30] and sum(cuts) == 1


def test_a_fade_to_black_is_not_a_cut():
    a = _world(3)[:, :640]
    gains = list(np.linspace(1.0, 0.05, 12)) + [0.05] * 10 + list(np.linspace(0.05, 1.0, 12))
    assert not any(_run([cv2.convertScaleAbs(a, alpha=g) for g in gains]))


def test_camera_shake_alone_is_not_a_cut():
    a = _world(4)
    rng = np.random.default_rng(0)
    offsets = rng.integers(0, 40, 40)
    assert sum(_run([a[:, 600 + o : 1240 + o] for o in offsets])) == 0


def test_a_jump_back_within_one_place_is_a_cut():
    """A replay restart: the same world, seen again from 2 s earlier. Histograms barely change."""
    a = _world(5)
    frames = [a[:, 3 * i : 3 * i + 640] for i in range(0, 60)] + [a[:, 3 * i : 3 * i + 640] for i in range(20, 40)]
    cuts = _run(frames)
    assert cuts[60]


def test_the_score_crosses_one_exactly_at_cuts():
    a, b = _world(6), _world(7)
    detector = CutDetector()
    results = [detector.step(luma_thumb(_frame(f[:, :640]))) for f in [a] * 10 + [b] * 10]
    assert all((score >= 1.0) == is_cut for is_cut, score, _ in results)
    assert [r[0] for r in results].index(True) == 10
