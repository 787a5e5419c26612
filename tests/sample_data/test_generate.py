"""The sample generator against its own ground truth, on small videos so the suite stays fast."""

import hashlib
import json

import cv2
import numpy as np
import pytest

from g2w.sample_data import VideoSpec, render_frames, sidecar_for, spec_for, write_sample
from g2w.sample_data.games import GAMES
from g2w.sample_data.generate import EVENTS, REPLAY_OFFSET, SIZES, STYLES
from g2w.video import FrameReader, probe


def small_spec(style="corridor", event="frozen", hud=False, seed=0, fps=10, seconds=20.0):
    return VideoSpec(seed, 0, 192, 108, fps, seconds, style, hud, event)


def digest(frames) -> str:
    h = hashlib.sha1()
    for f in frames:
        h.update(f.tobytes())
    return h.hexdigest()


def luma(frame: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(frame, cv2.COLOR_RGB2GRAY).astype(np.float32)


def test_same_spec_same_video():
    spec = small_spec(hud=True, event="duplicate", seconds=8.0)
    assert digest(render_frames(spec)) == digest(render_frames(spec))
    assert sidecar_for(spec, "a.mp4") == sidecar_for(spec, "a.mp4")


def test_another_seed_another_video():
    a = small_spec(seconds=2.0)
    b = small_spec(seconds=2.0, seed=1)
    assert digest(render_frames(a)) != digest(render_frames(b))


def test_a_batch_rotates_sizes_rates_games_and_events():
    specs = [spec_for(0, i, 30) for i in range(60)]
    assert {(s.width, s.height) for s in specs[:5]} == set(SIZES)
    assert {s.fps for s in specs[:3]} == {24, 30, 60}
    assert {s.style for s in specs[:4]} == set(STYLES)
    assert {s.first_event for s in specs[:6]} == set(EVENTS)
    assert any(s.hud for s in specs[:3]) and not all(s.hud for s in specs[:3])
    assert spec_for(0, 3, 30) == spec_for(0, 3, 30)


@pytest.mark.parametrize("style", sorted(GAMES))
def test_every_game_moves(style):
    frames = list(render_frames(small_spec(style=style, event="blur", seconds=1.0)))
    diffs = [np.abs(luma(a) - luma(b)).mean() for a, b in zip(frames, frames[1:])]
    assert min(diffs) > 0.2, "camera motion or animation should change every frame"
    assert frames[0].std() > 10, "scenes should have texture, not flat colour"


def _frames_and_truth(spec):
    frames = list(render_frames(spec))
    return frames, sidecar_for(spec, "x.mp4")


@pytest.mark.parametrize("style", sorted(GAMES))
def test_frozen_spans_repeat_one_frame(style):
    frames, truth = _frames_and_truth(small_spec(style=style, event="frozen"))
    (span,) = truth["frozen_spans"][:1]
    held = frames[span["start_frame"] - 1]
    assert all(np.array_equal(f, held) for f in frames[span["start_frame"] : span["end_frame"]])


@pytest.mark.parametrize("style", sorted(GAMES))
def test_dark_spans_are_dark(style):
    frames, truth = _frames_and_truth(small_spec(style=style, event="dark"))
    span = truth["dark_spans"][0]
    middle = frames[(span["start_frame"] + span["end_frame"]) // 2]
    before = frames[span["start_frame"] - 1]
    assert luma(middle).mean() < 20 < luma(before).mean()


@pytest.mark.parametrize("style", sorted(GAMES))
def test_blur_spans_lose_detail(style):
    frames, truth = _frames_and_truth(small_spec(style=style, event="blur"))
    span = truth["blur_spans"][0]

    def sharpness(f):
        return cv2.Laplacian(luma(f), cv2.CV_32F).var()

    blurred = sharpness(frames[(span["start_frame"] + span["end_frame"]) // 2])
    sharp = sharpness(frames[span["start_frame"] - 1])
    assert blurred < 0.25 * sharp


@pytest.mark.parametrize("style", sorted(GAMES))
def test_duplicates_match_their_source_up_to_the_offset(style):
    frames, truth = _frames_and_truth(small_spec(style=style, event="duplicate"))
    span = truth["duplicate_spans"][0]
    for f in range(span["start_frame"], span["end_frame"], 7):
        src = frames[f - span["start_frame"] + span["source_start_frame"]].astype(int)
        diff = frames[f].astype(int) - src
        assert 0 <= diff.min() and diff.max() <= REPLAY_OFFSET and diff.mean() > 1


def test_shaky_spans_move_the_whole_frame():
    frames, truth = _frames_and_truth(small_spec(style="sidescroller", event="shaky"))
    span = truth["shaky_spans"][0]
    steady = [np.abs(luma(a) - luma(b)).mean() for a, b in zip(frames[5:15], frames[6:16])]
    shaky = [
        np.abs(luma(a) - luma(b)).mean()
        for a, b in zip(
            frames[span["start_frame"] : span["end_frame"] - 1], frames[span["start_frame"] + 1 : span["end_frame"]]
        )
    ]
    assert np.median(shaky) > 2 * np.median(steady)


def test_cuts_are_the_largest_jumps():
    spec = small_spec(style="topdown", event="duplicate", seconds=30.0)
    frames, truth = _frames_and_truth(spec)
    diffs = np.array([np.abs(luma(a) - luma(b)).mean() for a, b in zip(frames, frames[1:])])
    cuts = {c["frame"] for c in truth["cuts"]}
    assert cuts, "a duplicate always brings cuts"
    at_cuts = [diffs[c - 1] for c in cuts]
    elsewhere = np.delete(diffs, [c - 1 for c in cuts])
    assert min(at_cuts) > 3 * np.median(elsewhere)


def test_hud_changes_only_pixels_inside_its_boxes():
    spec = small_spec(style="racing", event="dark", hud=True, seconds=12.0)
    truth = sidecar_for(spec, "x.mp4")
    assert truth["hud"]["present"] and truth["hud"]["elements"]
    inside = np.zeros((spec.height, spec.width), bool)
    for el in truth["hud"]["elements"]:
        x1, y1, x2, y2 = el["box"]
        assert 0 <= x1 < x2 <= spec.width and 0 <= y1 < y2 <= spec.height
        inside[y1:y2, x1:x2] = True
    with_hud = list(render_frames(spec))
    without = list(render_frames(spec, with_hud=False))
    changed = np.zeros_like(inside)
    for a, b in zip(with_hud, without):
        changed |= (a != b).any(axis=2)
    assert not (changed & ~inside).any()
    # and the boxes are tight: every box edge row/column has a changed pixel
    for el in truth["hud"]["elements"]:
        x1, y1, x2, y2 = el["box"]
        sub = changed[y1:y2, x1:x2]
        assert sub[0].any() and sub[-1].any() and sub[:, 0].any() and sub[:, -1].any(), el["label"]


def test_written_sample_matches_its_sidecar(tmp_path):
    spec = small_spec(style="sidescroller", event="duplicate", hud=True, seconds=12.0, fps=12)
    path = write_sample(spec, tmp_path)
    truth = json.loads((tmp_path / f"{spec.name}.json").read_text())
    info = probe(path)
    assert (info.width, info.height, info.frame_count) == (truth["width"], truth["height"], truth["frame_count"])
    assert info.fps == truth["fps"] and truth["video"] == f"{spec.name}.mp4"
    raw = list(render_frames(spec))
    decoded = FrameReader(path).read([0, 50, 143])
    for got, want in zip(decoded, [raw[0], raw[50], raw[143]]):
        assert np.abs(got.astype(int) - want.astype(int)).mean() < 6  # codec tolerance


def test_write_sample_skips_an_identical_finished_video(tmp_path):
    spec = small_spec(seconds=2.0)
    path = write_sample(spec, tmp_path)
    stamp = (tmp_path / f"{spec.name}.mp4").stat().st_mtime_ns
    assert write_sample(spec, tmp_path) == path
    assert (tmp_path / f"{spec.name}.mp4").stat().st_mtime_ns == stamp


def test_batches_without_baked_hud_give_clean_24_fps_clips(tmp_path):
    assert spec_for(0, 1, 1.0).hud and spec_for(0, 1, 1.0).fps == 24  # the 24 fps videos carry the HUD
    from g2w.sample_data import generate_samples

    paths = generate_samples(tmp_path, 2, seed=0, duration_s=0.25, baked_hud=False)
    sidecars = [json.loads((tmp_path / f"sample_0_{i:03d}.json").read_text()) for i in range(2)]
    assert [s["fps"] for s in sidecars] == [30, 24]
    assert not any(s["hud"]["present"] for s in sidecars) and len(paths) == 2
