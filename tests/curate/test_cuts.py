import av
import cv2
import numpy as np
import pytest

from g2w.curate.cuts import FrameSignals, cut_scores, luma_thumb, neighbour_mean
from g2w.sample_data.textures import colorize, tileable_noise


def _frame(rgb: np.ndarray) -> av.VideoFrame:
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")


def _world(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return colorize(tileable_noise(rng, size[0], size[1], 8, 4), tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3)))


def _signals(frames) -> FrameSignals:
    signals = FrameSignals()
    for i, f in enumerate(frames):
        signals.add(i / 30, luma_thumb(_frame(f)))
    return signals


def _run(frames) -> list[bool]:
    return list(_signals(frames).cut_scores() >= 1.0)


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


def test_a_fast_turn_is_not_a_cut_even_where_the_shift_is_lost():
    """A first-person flick: a third of the frame per step, beyond what phase correlation
    follows, for a dozen frames, starting from and ending in stillness."""
    a = _world(8, (360, 640 * 6))
    steps = [0] * 10 + [210] * 12 + [0] * 10
    offsets = np.cumsum(steps)
    assert not any(_run([a[:, o : o + 640] for o in offsets]))


def test_a_cut_into_a_turn_is_found():
    a, b = _world(9), _world(10, (360, 640 * 4))
    frames = [a[:, :640]] * 15 + [b[:, 40 * i : 40 * i + 640] for i in range(30)]
    assert _run(frames).index(True) == 15


def test_the_spike_is_judged_against_both_sides():
    diff = np.array([0.1] * 5 + [1.0] + [0.1] * 5 + [0.9] * 6)
    assert neighbour_mean(diff, 2)[5] == pytest.approx(0.1)
    scores = cut_scores(diff, np.full(len(diff), 0.5), np.zeros(len(diff), bool))
    assert list(np.flatnonzero(scores >= 1)) == [5]  # the turn starting at 11 has large neighbours after it
