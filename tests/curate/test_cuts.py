import av
import cv2
import numpy as np
import pytest

from g2w.curate.cuts import CutThresholds, FrameSignals, cut_scores, luma_thumb, neighbour_mean, side_means
from g2w.sample_data.textures import colorize, tileable_noise


def _frame(rgb: np.ndarray) -> av.VideoFrame:
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")


def _world(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return colorize(tileable_noise(rng, size[0], size[1], 8, 4), tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3)))


def _look_alike(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    """Another place painted with one fixed palette: different layout, nearly the same colours."""
    palette = np.random.default_rng(7)
    dark, light = tuple(palette.integers(0, 120, 3)), tuple(palette.integers(120, 255, 3))
    return colorize(tileable_noise(np.random.default_rng(seed), size[0], size[1], 8, 4), dark, light)


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


def test_a_cut_between_look_alike_places_during_a_fast_pan_is_found():
    """Two maps of one game: the histogram barely changes and the pan before the cut keeps the
    spike modest, but the two frames share no layout any shift explains."""
    a, b = _look_alike(11), _look_alike(12)
    frames = [a[:, 60 * i : 60 * i + 640] for i in range(20)] + [b[:, 8 * i : 8 * i + 640] for i in range(20)]
    signals = _signals(frames)
    assert signals.histogram[20] < CutThresholds().histogram
    assert list(np.flatnonzero(signals.cut_scores() >= 1)) == [20]


def test_side_means_keep_each_side_apart():
    before, after = side_means(np.array([1.0, 2.0, 3.0, 10.0, 5.0]), 2)
    assert list(before) == [0.0, 1.0, 1.5, 2.5, 6.5]
    assert list(after) == [2.5, 6.5, 7.5, 5.0, 0.0]


def _black(n: int) -> list[np.ndarray]:
    return [np.full((360, 640, 3), 3, np.uint8)] * n


def test_a_cut_through_black_is_found_on_the_first_frame_after_it():
    """Frames of one place, a few nearly black frames, then another place: the flat steps never
    cut, so only the bridge across the black run can find it."""
    a, b = _world(11), _world(12)
    frames = [a[:, 4 * i : 4 * i + 640] for i in range(20)] + _black(6) + [b[:, 4 * i : 4 * i + 640] for i in range(20)]
    signals = _signals(frames)
    cuts = list(signals.cut_scores() >= 1.0)
    assert list(signals.bridges) == [26]
    assert cuts.index(True) == 26 and sum(cuts) == 1


def test_a_dip_to_black_back_into_the_same_place_is_not_a_cut():
    a = _world(13)
    frames = [a[:, 4 * i : 4 * i + 640] for i in range(20)] + _black(6) + [a[:, 4 * i : 4 * i + 640] for i in range(26, 46)]
    assert not any(_run(frames))


def test_a_long_black_run_is_not_bridged():
    """Longer than MAX_BRIDGE_S: what comes after is judged on its own steps (none is a cut)."""
    a, b = _world(14), _world(15)
    frames = [a[:, 4 * i : 4 * i + 640] for i in range(20)] + _black(40) + [b[:, 4 * i : 4 * i + 640] for i in range(20)]
    signals = _signals(frames)
    assert not signals.bridges
    assert not any(signals.cut_scores() >= 1.0)


def test_flat_steps_are_left_out_of_the_neighbours():
    values = np.array([1.0, 9.0, 9.0, 1.0, 1.0])
    flat = np.array([False, True, True, False, False])
    before, after = side_means(values, 2, ~flat)
    assert before[3] == 0.0 and after[0] == 0.0  # a side with only flat steps is empty
    assert neighbour_mean(values, 2, ~flat)[3] == pytest.approx(1.0)
