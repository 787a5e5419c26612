import av
import cv2
import numpy as np
import pytest

from g2w.curate import cuts
from g2w.curate.cuts import (
    CutThresholds,
    FrameSignals,
    block_matches,
    coherent_share,
    cut_scores,
    detail_matches,
    inside_run,
    luma_thumb,
    neighbour_mean,
    side_means,
    unexplained_share,
    with_local_cue,
)
from g2w.sample_data.textures import colorize, tileable_noise


def _frame(rgb: np.ndarray) -> av.VideoFrame:
    return av.VideoFrame.from_ndarray(rgb, format="rgb24").reformat(format="yuv420p")


def _world(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return colorize(
        tileable_noise(rng, size[0], size[1], 8, 4), tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3))
    )


def _look_alike(seed: int, size=(360, 640 * 3)) -> np.ndarray:
    """Another place painted with one fixed palette: different layout, nearly the same colours."""
    palette = np.random.default_rng(7)
    dark, light = tuple(palette.integers(0, 120, 3)), tuple(palette.integers(120, 255, 3))
    return colorize(tileable_noise(np.random.default_rng(seed), size[0], size[1], 8, 4), dark, light)


def _signals(frames, thresholds: CutThresholds = CutThresholds(), measure_from: float | None = None) -> FrameSignals:
    signals = FrameSignals(thresholds, measure_from)
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
    frames = (
        [a[:, 4 * i : 4 * i + 640] for i in range(20)] + _black(6) + [a[:, 4 * i : 4 * i + 640] for i in range(26, 46)]
    )
    assert not any(_run(frames))


def test_a_long_black_run_is_not_bridged():
    """Longer than MAX_BRIDGE_S: what comes after is judged on its own steps (none is a cut)."""
    a, b = _world(14), _world(15)
    frames = (
        [a[:, 4 * i : 4 * i + 640] for i in range(20)] + _black(40) + [b[:, 4 * i : 4 * i + 640] for i in range(20)]
    )
    signals = _signals(frames)
    assert not signals.bridges
    assert not any(signals.cut_scores() >= 1.0)


def test_a_dim_scene_flickering_about_the_flat_level_is_not_bridged_into_a_cut():
    """A dark, moving scene whose contrast hovers about FLAT_CONTRAST (real cube2 footage: 3.3-4.3
    for a second): runs of it count as flat but never dip, so nothing is compared across them,
    while a real dip to black between two places still is."""
    a = _world(16)
    views = [a[:, 4 * i : 4 * i + 640] for i in range(40)]
    base = [luma_thumb(_frame(v)).contrast for v in views]
    target = [cuts.FLAT_CONTRAST * (0.9 if 8 <= i < 30 and i % 7 else 1.08) for i in range(40)]
    frames = [cv2.convertScaleAbs(v, alpha=t / c, beta=60) for v, t, c in zip(views, target, base)]
    signals = _signals(frames)
    assert 0 < sum(signals.flat) < 40  # it does cross the flat level, back and forth
    assert not signals.bridges and not any(signals.cut_scores() >= 1.0)


def test_flat_steps_are_left_out_of_the_neighbours():
    values = np.array([1.0, 9.0, 9.0, 1.0, 1.0])
    flat = np.array([False, True, True, False, False])
    before, after = side_means(values, 2, ~flat)
    assert before[3] == 0.0 and after[0] == 0.0  # a side with only flat steps is empty
    assert neighbour_mean(values, 2, ~flat)[3] == pytest.approx(1.0)


def _detail(seed: int, shape=(90, 400)) -> np.ndarray:
    """A 160x90-sized view's worth of fine, game-like detail (the local cue's thumbnail scale)."""
    noise = np.random.default_rng(seed).integers(0, 256, shape).astype(np.float32)
    return np.clip(cv2.GaussianBlur(noise, (0, 0), 0.8) * 2 - 128, 0, 255).astype(np.uint8)


def test_the_local_cue_explains_a_turn_and_a_tint_but_not_another_place():
    world, other = _detail(1), _detail(2)
    before, turned = world[:, 100:260], world[:, 118:278]  # 18 px: far beyond a pixel, within the search
    assert unexplained_share(before, turned) <= 1 / 8  # at most the column of blocks the turn uncovered
    tinted = cv2.convertScaleAbs(turned, alpha=0.55, beta=40)  # a damage tint: gain and offset
    assert unexplained_share(before, tinted) <= 1 / 8
    assert unexplained_share(before, other[:, 100:260]) > 0.8


def test_a_flash_over_a_minority_of_blocks_leaves_only_those_unexplained():
    world = _detail(3)
    before, after = world[:, 100:260], world[:, 104:264].copy()
    after[:, :40] = 255  # a beam across a quarter of the view: flat and bright there
    share = unexplained_share(before, after)
    assert share < 0.2  # the flat blocks are not judged, the rest are explained
    after[:, :40] = _detail(4)[:, :40]  # a textured overlay instead
    assert 0.15 < unexplained_share(before, after) < 0.4


def test_too_few_textured_blocks_give_no_local_cue():
    flat = np.full((90, 160), 90, np.uint8)
    assert np.isnan(unexplained_share(flat, flat))


def test_the_local_cue_promotes_a_near_miss_only():
    t = CutThresholds(promote_score=0.85, promote_unexplained=0.6)
    score = np.array([0.9, 0.9, 1.3, 0.5, 0.9, 0.8])
    share = np.array([0.7, 0.3, 0.1, 0.9, np.nan, 0.9])
    judged = with_local_cue(score, share, t)
    assert list(judged >= 1) == [True, False, True, False, False, False]  # no veto: 1.3 stays a cut
    assert judged[4] == 0.9 and judged[2] == 1.3  # not measured, or already a cut: unchanged
    assert list(with_local_cue(score, share, CutThresholds(promote_score=float("inf")))) == list(score)


def test_smooth_procedural_textures_leave_no_block_unexplained():
    """Why the local cue never vetoes: procedural noise is smooth, so a block of one place
    correlates ~0.9 with some spot of another and a switch of world looks explained."""
    a, b = _world(1), _world(2)
    before, after = (luma_thumb(_frame(f)).blocks for f in (a[:, 174:814], b[:, :640]))
    assert unexplained_share(before, after) < 0.2
    assert np.median(block_matches(before, after)) > 0.8


def test_the_local_cue_is_measured_only_where_it_can_decide():
    a, b = _world(1), _world(2)
    frames = [a[:, 6 * i : 6 * i + 640] for i in range(30)] + [b[:, 6 * i : 6 * i + 640] for i in range(30)]
    assert not np.isfinite(_signals(frames).unexplained_array()).any()  # a clear cut (2.7), no veto: nothing to decide
    measured = _signals(frames, measure_from=0.5).unexplained_array()  # the calibration's: from a score of 0.5
    assert list(np.flatnonzero(np.isfinite(measured))) == [30]
    promote_all = _signals(frames, CutThresholds(promote_score=0.0)).unexplained_array()  # every step below 1
    assert np.isnan(promote_all[30]) and np.isfinite(promote_all[1:30]).all()
    assert luma_thumb(_frame(frames[0])).blocks.shape == (90, 160)


def test_the_local_cue_needs_no_more_than_the_neighbours_after_a_step():
    """Measured while frames stream in (once the neighbours after a step came), it equals what
    the end of the source gives for the last steps."""
    a, b = _world(1), _world(2)
    frames = [a[:, 6 * i : 6 * i + 640] for i in range(30)] + [b[:, 6 * i : 6 * i + 640] for i in range(3)]
    signals = _signals(frames, measure_from=0.5)  # the cut is 2 frames before the end: judged at the end
    assert np.isnan(signals.unexplained[30]) and np.isfinite(signals.unexplained_array()[30])
    streamed = _signals(frames + [b[:, 6 * i : 6 * i + 640] for i in range(3, 10)], measure_from=0.5)
    assert streamed.unexplained[30] == signals.unexplained_array()[30]


def test_a_flash_is_explained_at_the_cameras_offset_and_a_cut_or_a_jump_is_not():
    world, other = _detail(5, (90, 600)), _detail(6, (90, 600))
    before, after = world[:, 200:360], world[:, 204:364].copy()  # the camera moves 4 px a frame
    after[20:50, :] = _detail(7)[20:50, :160]  # a textured beam across a third of the view
    after[50:, :] = cv2.convertScaleAbs(after[50:, :], alpha=0.6, beta=60)  # and a damage tint below it
    for matches in (lambda p, c: block_matches(p, c, offsets=True), detail_matches):
        flash = matches(before, after)
        assert coherent_share(flash, (4, 0)) > 0.5  # the rest is found where the camera's motion puts it: 4 px on
        assert coherent_share(matches(before, other[:, 200:360]), (4, 0)) < 0.2
        jump = matches(before, world[:, 230:390])  # 30 px at once while the camera moved 4
        assert coherent_share(jump, (4, 0)) == 0.0 and coherent_share(jump, (30, 0)) > 0.6  # less what it uncovered


def _checker(period: int = 10, shape=(90, 400)) -> np.ndarray:
    y, x = np.mgrid[0 : shape[0], 0 : shape[1]]
    return np.where(((x // (period // 2)) + (y // (period // 2))) % 2 == 0, 60, 190).astype(np.uint8)


def test_the_veto_counts_only_blocks_whose_match_is_informative():
    """A repeating pattern (a checkered floor) or a smooth gradient (a sky) matches another
    view of itself at many offsets: such blocks say nothing about where they came from, so the
    detail match does not count them, while texture moved the same way is counted."""
    checker, texture = _checker(), _detail(8)
    moved = {name: (w[:, 100:260], w[:, 104:264]) for name, w in (("checker", checker), ("texture", texture))}  # 4 px
    for before, after in moved.values():
        rows = detail_matches(before, after)
        assert len(rows) == 48 and np.median(rows[:, 0]) > 0.9  # every block has detail and is matched
    assert coherent_share(detail_matches(*moved["texture"]), (4, 0)) > 0.8
    assert np.median(detail_matches(*moved["checker"])[:, 3]) > 0.9  # ... but a checker block finds itself elsewhere
    assert coherent_share(detail_matches(*moved["checker"]), (4, 0)) == 0.0
    sky = np.repeat(np.linspace(40, 220, 90, dtype=np.float32)[:, None], 160, axis=1).astype(np.uint8)
    assert len(detail_matches(sky, cv2.convertScaleAbs(sky, alpha=0.8, beta=30))) == 0  # nothing to match
    assert len(block_matches(sky, sky)) == 48  # while its luma passes as texture


def test_the_coherent_veto_holds_a_flash_under_the_cut_score_and_spares_procedural_cuts():
    t = CutThresholds()  # on by default, at the level the calibration chose on real footage
    assert np.isfinite(t.veto_coherent)
    score, share = np.array([1.3, 1.3, 0.5]), np.full(3, np.nan)
    flash = np.array([t.veto_coherent + 0.3, t.veto_coherent - 0.1, 0.9])
    assert list(with_local_cue(score, share, t, flash) >= 1) == [False, True, False]
    off = CutThresholds(veto_coherent=float("inf"))
    assert list(with_local_cue(score, share, off, flash) >= 1) == [True, True, False]
    a, b = _world(1), _world(2)
    switch = [a[:, 6 * i : 6 * i + 640] for i in range(30)] + [b[:, 6 * i : 6 * i + 640] for i in range(30)]
    a = _world(5)
    jump_back = [a[:, 3 * i : 3 * i + 640] for i in range(0, 60)] + [a[:, 3 * i : 3 * i + 640] for i in range(20, 40)]
    for frames, cut in ((switch, 30), (jump_back, 60)):
        assert list(np.flatnonzero(_signals(frames, t).cut_scores(t) >= 1)) == [cut]


def _textured(seed: int, width: int = 1200) -> np.ndarray:
    """A 360-pixel-high gray world of fine detail at the scale of the local cue's thumbnail (4x4 cells)."""
    return cv2.resize(_detail(seed, (90, width)), (width * 4, 360), interpolation=cv2.INTER_NEAREST)


def test_a_flash_over_a_moving_view_is_vetoed():
    """A bright blob and a textured beam for one frame while the camera pans 16 px a frame: the
    step back out of it scores as a cut on the global cues, and the rest of the picture is found
    where the camera's motion puts it, so the default veto holds it under the cut score."""
    world = _textured(1)
    frames = [np.repeat(world[:, 16 * i : 16 * i + 640, None], 3, axis=2) for i in range(40)]
    yy, xx = np.mgrid[0:360, 0:640]
    blob = 0.7 * np.exp(-((xx - 320) ** 2 + (yy - 300) ** 2) / (2 * 150.0**2))[..., None]
    flash = frames[30] * (1 - blob) + 255 * blob
    flash[80:200] = _textured(7)[80:200, :640, None]
    frames[30] = np.clip(flash, 0, 255).astype(np.uint8)
    off = CutThresholds(veto_coherent=float("inf"), flash_gain=0.0)  # the flash test would hold it too
    assert (_signals(frames, off).cut_scores(off)[30:32] >= 1).any()  # without the veto: a false cut
    assert not (_signals(frames).cut_scores() >= 1).any()


def test_a_still_camera_gives_the_veto_no_evidence(monkeypatch):
    """Two views that share their layout (the same walls, other texture) with the camera still:
    most blocks match at zero offset, as a flash over a still view would, so the match proves
    nothing and the cut stays a cut; counted without the motion condition, it would be vetoed."""
    layout = _textured(9)[:, :640].astype(np.float32)
    a, b = (np.clip(0.6 * layout + 0.4 * _textured(k)[:, :640], 0, 255) for k in (10, 11))
    noise = np.random.default_rng(0)
    frames = [
        np.repeat(np.clip(x + noise.normal(0, 2, x.shape), 0, 255).astype(np.uint8)[..., None], 3, axis=2)
        for x in [a] * 30 + [b] * 30
    ]
    small = [cv2.resize(x.astype(np.uint8), (160, 90), interpolation=cv2.INTER_AREA) for x in (a, b)]
    rows = detail_matches(*small)
    assert np.median(rows[:, 0]) > 0.5 and np.abs(rows[:, 1:3]).max() == 0  # they match, at zero offset
    assert coherent_share(rows, (0, 0)) == 0.0 and coherent_share(rows, (1.5, 0)) == 0.0
    assert list(np.flatnonzero(_signals(frames).cut_scores() >= 1)) == [30]
    monkeypatch.setattr(cuts, "VETO_MOTION_PX", 0.0)
    assert coherent_share(rows, (0, 0)) > 0.5
    assert not (_signals(frames).cut_scores() >= 1).any()


def test_the_stand_out_promotes_a_near_miss_whose_neighbours_are_explained():
    t = CutThresholds(promote_score=float("inf"), standout_score=0.85, standout_unexplained=0.2)
    score, share = np.array([0.9, 0.9, 0.8, 0.9]), np.array([0.4, 0.5, 0.6, 0.4])
    standout = np.array([0.3, -0.05, 0.4, np.nan])  # a cut; a strafe (its neighbours as lost); too low; unmeasured
    assert list(with_local_cue(score, share, t, standout=standout) >= 1) == [True, False, False, False]
    off = CutThresholds(promote_score=float("inf"), standout_score=float("inf"))
    assert not (with_local_cue(score, share, off, standout=standout) >= 1).any()


def test_the_stand_out_is_high_at_a_cut_and_low_inside_fast_motion():
    """A cut: the steps on each side are explained, the cut is not. A burst of fast motion (each
    step further than the block search reaches): its neighbours are as unexplained as it is."""

    def view(seed, x):
        world = cv2.resize(_detail(seed, (90, 700)), None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)
        return np.repeat(world[:, 4 * x : 4 * x + 640, None], 3, axis=2)

    xs = [2 * i for i in range(12)] + [24 + 60 * k for k in range(1, 5)] + [264 + 2 * i for i in range(12)]
    fast = [view(1, x) for x in xs]
    cut = [view(1, 2 * i) for i in range(14)] + [view(2, 2 * i) for i in range(14)]
    s = _signals(cut, measure_from=0.0)
    standout = s.local_cue_arrays()[2]
    assert standout[14] > 0.5 and np.nanmax(np.delete(standout, 14)) < 0.2
    s = _signals(fast, measure_from=0.0)
    share, _, standout = s.local_cue_arrays()
    assert (share[12:16] > 0.3).all() and (standout[13:16] < 0.2).all()  # unexplained, but not alone


def test_a_flash_over_a_still_camera_comes_back_and_is_no_cut_while_a_cut_stays_one():
    """A bright blob for 3 frames over a resting view: the view before it comes back after it (and
    the view after it was there just before it), so the return veto holds the steps into and out
    of it under the cut score; a cut later (and one 2 frames before the end, judged on the frames
    that came) does not come back and stays a cut."""
    still, other, third = (_textured(k)[:, :640] for k in (12, 13, 14))
    noise = np.random.default_rng(1)
    yy, xx = np.mgrid[0:360, 0:640]
    blob = 0.7 * np.exp(-((xx - 300) ** 2 + (yy - 200) ** 2) / (2 * 170.0**2))
    views = [still] * 45 + [other] * 30 + [third] * 2
    for k in (20, 21, 22):
        views[k] = still * (1 - blob) + 255 * blob
    frames = [
        np.repeat(np.clip(v + noise.normal(0, 2, v.shape), 0, 255).astype(np.uint8)[..., None], 3, axis=2)
        for v in views
    ]
    off = CutThresholds(veto_return=0.0, flash_gain=0.0)  # the flash test would hold it too
    assert 20 in np.flatnonzero(_signals(frames, off).cut_scores(off) >= 1)  # without the veto: a false cut
    on = CutThresholds()  # on by default, at the level the calibration chose on real footage
    assert on.veto_return > 0
    signals = _signals(frames, on)
    back = signals.return_array()
    assert back[20] < 0.3 and back[23] < 0.3 and back[45] > 0.8  # into and out of the flash: seen again; the cut: not
    assert list(np.flatnonzero(signals.cut_scores(on) >= 1)) == [45, 75]
    assert np.isnan(back[1:20]).all()  # measured only where a step can be a cut


def test_a_step_is_inside_a_run_only_when_both_adjacent_steps_decorrelate_as_much():
    d = np.array([0.1, 1.0, 1.1, 1.0, 0.2, 1.0, 1.1, 1.0])
    solid = np.ones(len(d), bool)
    run = inside_run(d, solid, 1.25)
    assert run[2] and not run[1] and not run[3]  # the middle of a burst; its edges have a calm side
    assert not inside_run(d, solid, 1.05)[2]  # 1.1 stands out 1.1x: above this level
    solid[7] = False  # a flat neighbour judges nothing
    assert run[6] and not inside_run(d, solid, 1.25)[6]
    assert not inside_run(d[:2], solid[:2], 1.25).any()


def _strafe(cut: bool) -> list[np.ndarray]:
    """A slow pan over fine detail, then either 3 steps that outrun the motion compensation (a
    strafe past a near wall: each more than a quarter of the frame) and the slow pan again, or
    one such flick (step 20) straight into a cut to another place (step 21)."""
    a, b = (np.repeat(_textured(seed, 640 * 6)[..., None], 3, axis=2) for seed in (21, 22))
    offsets = np.cumsum([6] * 20 + ([200] if cut else [200, 230, 200]) + [6] * 20)
    frames = [a[:, o : o + 640] for o in offsets]
    return frames[:21] + [b[:, 6 * i : 6 * i + 640] for i in range(20)] if cut else frames


def test_a_strafe_burst_is_no_cut_but_a_cut_right_after_a_flick_is():
    """Without the run veto the middle step of a 3-step strafe stands out against the side means
    (diluted by the calm frames around it) and reads as a structural cut; both its adjacent steps
    decorrelate as much, so the veto holds it. A cut right after a flick has the new shot's calm
    step after it, so the veto leaves it a cut (as it leaves the flick itself: one step of more
    than a quarter of the frame is a cut by every cue, with or without the veto)."""
    off, on = CutThresholds(veto_run=0.0), CutThresholds()
    assert on.veto_run > 0  # on by default, at the level the calibration chose on real footage
    strafe = _signals(_strafe(False), on)
    assert list(np.flatnonzero(strafe.cut_scores(off) >= 1)) == [21]
    assert not (strafe.cut_scores(on) >= 1).any()
    flick = _signals(_strafe(True), on)
    assert (
        list(np.flatnonzero(flick.cut_scores(off) >= 1)) == list(np.flatnonzero(flick.cut_scores(on) >= 1)) == [20, 21]
    )


def test_a_lit_run_whose_unlit_ends_match_is_a_flash_while_a_cut_to_a_bright_shot_stays_a_cut():
    """Eight frames relit unevenly (a bright wash, strongest at the bottom, as a muzzle flash lights
    the near floor) while the camera pans: the step out of it scores as a cut on the global cues
    with the single-step vetoes off; the flash test finds the lit run, matches its two unlit ends
    and holds every step of it under the cut score. A cut to another, brighter place that lasts
    has no unlit end after it, so it stays a cut."""
    world, other = _textured(31), _textured(32)
    yy = np.mgrid[0:360, 0:640][0] / 360.0
    wash = (0.35 + 0.5 * yy) * 255
    views = [world[:, 8 * i : 8 * i + 640].astype(np.float32) * 0.6 for i in range(60)]
    for k in range(20, 28):
        views[k] = views[k] * (1 - 0.9 * yy) + 0.9 * yy * wash
    views[45:] = [other[:, 8 * i : 8 * i + 640].astype(np.float32) for i in range(15)]
    frames = [np.repeat(np.clip(v, 0, 255).astype(np.uint8)[..., None], 3, axis=2) for v in views]
    single = dict(veto_coherent=float("inf"), veto_return=0.0)
    off = CutThresholds(flash_gain=0.0, **single)
    assert set(np.flatnonzero(_signals(frames, off).cut_scores(off) >= 1)) - {45}  # a false cut at the flash
    on = CutThresholds(**single)
    signals = _signals(frames, on)
    assert all(signals.flash[20:29]) and not any(signals.flash[:20]) and not signals.flash[45]
    assert list(np.flatnonzero(signals.cut_scores(on) >= 1)) == [45]
