import numpy as np
import pytest

from g2w.sample_data.timeline import (
    DARK_GAIN,
    DUPLICATE_S,
    GRID_S,
    KINDS,
    FrameSource,
    continues,
    cut_frames,
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
    assert blocks[0].kind == "play"
    assert max(b.scene for b in blocks) == scenes - 1


@pytest.mark.parametrize("seed", range(20))
def test_structural_rules(seed):
    blocks, _ = _plan(seed)
    for prev, block in zip(blocks, blocks[1:]):
        if block.kind == "duplicate":
            assert block.start_frame >= DUPLICATE_S * 30
        if prev.kind == "duplicate":
            assert block.kind != "frozen"


def test_continuity_defines_cuts():
    a = FrameSource(0, 1.0, 1.0, 1.0, 1.0, False, False)
    fps = 10
    assert continues(a, a, fps)
    assert continues(a, FrameSource(0, 1.1, 1.1, 1.1, 1.0, True, False), fps)  # blur starts: no cut
    assert continues(a, FrameSource(0, 1.003, 1.1, 1.1, 1.0, False, False), fps)  # idle camera
    assert not continues(a, FrameSource(1, 1.1, 1.1, 1.1, 1.0, False, False), fps)  # another scene
    assert not continues(a, FrameSource(0, 0.5, 0.5, 1.1, 1.0, False, True), fps)  # a replay jumps back
    assert cut_frames([a, a, FrameSource(1, 0, 0, 0, 1.0, False, False)], fps) == [2]


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
    assert continues(held, sources[frozen.end_frame], fps)
    assert frozen.end_frame not in cut_frames(sources, fps)


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


def test_a_replay_of_frozen_footage_is_no_cut():
    fps = 10
    for seed in range(40):
        blocks, _ = _plan(seed, 40.0, fps)
        sources = frame_sources(blocks, fps)
        for f in cut_frames(sources, fps):
            assert sources[f] != sources[f - 1]


def test_shaky_blocks_jitter_the_camera():
    fps = 10
    blocks, _ = _plan(8, 30.0, fps, first_event="shaky")
    shaky = blocks[1]
    sources = frame_sources(blocks, fps)
    jitter = np.array([s.shake for s in sources[shaky.start_frame : shaky.end_frame]])
    assert jitter.std() > 0.005
    assert all(s.shake == (0.0, 0.0) for s in sources[: shaky.start_frame])
    assert not set(cut_frames(sources, fps)) & set(range(shaky.start_frame + 1, shaky.end_frame))


def test_ground_truth_lists_cuts_and_spans():
    fps = 30
    blocks, _ = _plan(7, 30.0, fps, first_event="duplicate")
    truth = ground_truth(blocks, frame_sources(blocks, fps), fps)
    assert blocks[1].start_frame in [c["frame"] for c in truth["cuts"]]
    assert truth["blocks"][1]["cut"]
    (dup,) = [d for d in truth["duplicate_spans"] if d["start_frame"] == blocks[1].start_frame]
    assert dup["source_end_frame"] - dup["source_start_frame"] == dup["end_frame"] - dup["start_frame"]
    assert dup["start_s"] == blocks[1].start_frame / fps
