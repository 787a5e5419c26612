import numpy as np
import pytest

from g2w.sample_data.timeline import (
    DARK_GAIN,
    DUPLICATE_S,
    GRID_S,
    KINDS,
    frame_sources,
    ground_truth,
    plan_blocks,
)


def _plan(seed: int, seconds: float = 30.0, fps: int = 30, first_event=None):
    return plan_blocks(np.random.default_rng(seed), round(seconds * fps), fps, first_event)


@pytest.mark.parametrize("seed", range(20))
def test_blocks_tile_the_video_on_the_grid(seed):
    fps = 24
    blocks, scenes = _plan(seed, 40.0, fps)
    assert blocks[0].start_frame == 0 and blocks[-1].end_frame == 40 * fps
    assert all(a.end_frame == b.start_frame for a, b in zip(blocks, blocks[1:]))
    grid = round(GRID_S * fps)
    assert all(b.start_frame % grid == 0 for b in blocks)
    assert blocks[0].kind == "play" and not blocks[0].cut
    assert max(b.scene for b in blocks) == scenes - 1


@pytest.mark.parametrize("seed", range(20))
def test_structural_rules(seed):
    blocks, _ = _plan(seed)
    for prev, block in zip(blocks, blocks[1:]):
        if block.kind == "duplicate":
            assert block.start_frame >= DUPLICATE_S * 30 and block.cut
        if prev.kind == "duplicate":
            assert block.kind != "frozen" and block.cut


@pytest.mark.parametrize("event", [k for k in KINDS if k != "play"])
def test_first_event_is_forced(event):
    blocks, _ = _plan(3, first_event=event)
    assert blocks[1].kind == event


def test_frame_sources_follow_the_blocks():
    fps = 10
    blocks, _ = _plan(5, 30.0, fps, first_event="frozen")
    sources = frame_sources(blocks, fps)
    assert len(sources) == 300
    frozen = blocks[1]
    held = sources[frozen.start_frame - 1]
    assert all(s == held for s in sources[frozen.start_frame : frozen.end_frame])
    # the camera resumes where it stopped: no jump after a freeze
    after = sources[frozen.end_frame]
    assert after.cam_t == pytest.approx(held.cam_t + 1 / fps)


def test_dark_blocks_fade_in_and_out():
    fps = 30
    blocks, _ = _plan(1, 30.0, fps, first_event="dark")
    dark = blocks[1]
    gains = [s.dark_gain for s in frame_sources(blocks, fps)[dark.start_frame : dark.end_frame]]
    assert gains[0] == 1.0 and gains[len(gains) // 2] == pytest.approx(DARK_GAIN)
    assert gains[-1] > 0.8 * DARK_GAIN


def test_duplicates_replay_the_previous_five_seconds():
    fps = 12
    blocks, _ = _plan(2, 30.0, fps, first_event="duplicate")
    sources = frame_sources(blocks, fps)
    dup = blocks[1]
    lag = round(DUPLICATE_S * fps)
    for f in range(dup.start_frame, dup.end_frame):
        original, replay = sources[f - lag], sources[f]
        assert replay.replay and not original.replay
        assert (replay.scene, replay.cam_t, replay.anim_t) == (original.scene, original.cam_t, original.anim_t)


def test_idle_nearly_stops_the_camera_but_not_the_world():
    fps = 10
    blocks, _ = _plan(4, 30.0, fps, first_event="idle")
    idle = blocks[1]
    sources = frame_sources(blocks, fps)[idle.start_frame : idle.end_frame]
    cam = sources[-1].cam_t - sources[0].cam_t
    anim = sources[-1].anim_t - sources[0].anim_t
    assert anim == pytest.approx((len(sources) - 1) / fps)
    assert cam < 0.05 * anim


def test_ground_truth_lists_cuts_and_spans():
    fps = 30
    blocks, _ = _plan(7, 30.0, fps, first_event="duplicate")
    truth = ground_truth(blocks, fps)
    assert [c["frame"] for c in truth["cuts"]] == [b.start_frame for b in blocks if b.cut]
    (dup,) = [d for d in truth["duplicate_spans"] if d["start_frame"] == blocks[1].start_frame]
    assert dup["source_end_frame"] - dup["source_start_frame"] == dup["end_frame"] - dup["start_frame"]
    assert dup["start_s"] == blocks[1].start_frame / fps
