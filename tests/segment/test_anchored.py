"""Screen-anchored world objects as hard negatives (`g2w.segment.anchored`): pure numpy, no Ray."""

import numpy as np
import pytest

from g2w.jobs.options import SegmenterTrainOptions
from g2w.jobs.train_segmenter import run_train_segmenter
from g2w.models.hud_segmenter import HudSegmenterConfig
from g2w.segment.anchored import _path, anchored_input, composite
from g2w.segment.data import frame_input, random_item
from g2w.segment.inputs import window_stats

H, W, N = 48, 80, 32


def _moving_world(n=N, seed=0):
    """Frames of a textured world that scrolls sideways, with a static 10x20 UI box at the top left."""
    rng = np.random.default_rng(seed)
    world = rng.integers(0, 256, (H, W + n * 2, 3)).astype(np.uint8)
    frames = np.stack([world[:, 2 * k : 2 * k + W] for k in range(n)])
    ui = np.zeros((n, H, W), np.uint8)
    ui[:, 2:12, 2:22] = 1
    frames[:, 2:12, 2:22] = 255
    return frames, ui


def _donor(value=128):
    return {"frames": np.full((4, H, W, 3), value, np.uint8), "ui": np.zeros((4, H, W), np.uint8)}


def test_the_object_goes_into_the_world_and_under_the_ui():
    frames, ui = _moving_world()
    before = frames.copy()
    changed = 0
    for seed in range(10):
        out = composite(frames, ui, [_donor()], np.random.default_rng(seed))
        assert out.shape == frames.shape and out.dtype == np.uint8
        # the UI box and its one-pixel rim are never painted over
        assert np.array_equal(out[:, 1:13, 1:23], frames[:, 1:13, 1:23])
        changed += int((out != frames).any(axis=-1).sum())
    assert np.array_equal(frames, before)  # the cached sample is not modified
    assert changed > 10 * N * 20  # objects of at least a few dozen pixels were pasted


def test_the_bob_rests_when_the_view_is_still_and_moves_with_it():
    moved = 0
    for seed in range(40):
        dx, dy, gain = _path(np.zeros(N), np.random.default_rng(seed))
        assert not dx.any()
        assert not dy[gain == 1].any()  # only a firing kick moves a resting object
        dx, dy, gain = _path(np.ones(N), np.random.default_rng(seed))
        moved += int(np.abs(dx).max() >= 1)
    assert 15 <= moved < 40  # about a third of the objects are held still however the view moves


def test_the_shading_follows_the_scene_light():
    # a still, flat scene that brightens from 40 to 200: the object (a flat donor texture) brightens too
    levels = np.linspace(40, 200, N)
    frames = np.stack([np.full((H, W, 3), v, np.uint8) for v in levels])
    ui = np.zeros((N, H, W), np.uint8)
    brighter = 0
    for seed in range(20):
        out = composite(frames, ui, [_donor(128)], np.random.default_rng(seed)).astype(int)
        first, last = (np.abs(out[k] - frames[k]).max(axis=-1) > 0 for k in (0, N - 1))
        if first.sum() < 10 or last.sum() < 10:
            continue
        brighter += int(np.median(out[N - 1][last]) > np.median(out[0][first]))
    assert brighter >= 15


def test_the_input_reads_the_composited_window():
    config = HudSegmenterConfig()
    frames, ui = _moving_world(40)
    sample = {"frames": frames, "ui": ui, "labels": np.full(ui.shape, -1, np.int8)}
    plain = frame_input(dict(sample), 5, config)
    x = anchored_input(sample, 5, config, [_donor(250)], np.random.default_rng(1))
    assert x.shape == plain.shape and x.dtype == np.float32
    assert not np.allclose(x, plain)
    # the statistics planes are those of the window with the object in it, not of the plain window
    median, spread = window_stats(frames[: config.span])
    assert np.allclose(plain[-4:-1], median.transpose(2, 0, 1) / 255)
    assert not np.allclose(x[-4:-1], median.transpose(2, 0, 1) / 255)
    assert not np.allclose(x[-1], spread / 255)


def test_off_by_default_and_targets_kept():
    config = HudSegmenterConfig()
    frames, ui = _moving_world(40)
    sample = {"frames": frames, "ui": ui, "labels": np.where(ui > 0, 3, -1).astype(np.int8)}
    a = random_item([sample], config, 32, np.random.default_rng(7), jitter=False)
    b = random_item([sample], config, 32, np.random.default_rng(7), jitter=False, anchored=0.0)
    for p, q in zip(a, b):
        assert np.array_equal(p.numpy(), q.numpy())
    x, target, labels = random_item(
        [sample], config, 48, np.random.default_rng(7), jitter=False, anchored=1.0, donors=[_donor()]
    )
    # the targets are the sample's own (a 48x48 window of its UI map): the object is world
    assert any(np.array_equal(target.numpy(), ui[0, :, x0 : x0 + 48]) for x0 in range(W - 48 + 1))
    assert ((labels >= 0) == (target > 0)).all()


def test_the_share_must_be_a_share(tmp_path):
    with pytest.raises(ValueError, match="anchored-negatives"):
        run_train_segmenter(
            SegmenterTrainOptions([str(tmp_path)], [str(tmp_path)], str(tmp_path / "run"), anchored_negatives=1.5)
        )
