"""The per-element and static-world loss terms and the warm start (pure torch, no Ray)."""

import os

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.data import IGNORE
from g2w.segment.inputs import assemble, window_stats
from g2w.segment.losses import element_recall_loss, segmenter_loss, static_world, static_world_loss
from g2w.segment.task import SegmenterTask


def _scene():
    """One crop: a 40x40 panel (label 2) found, a 2x2 crosshair (label 5) missed."""
    labels = torch.full((1, 64, 64), IGNORE, dtype=torch.long)
    labels[0, 4:44, 4:44] = 2
    labels[0, 50:52, 50:52] = 5
    ui = (labels != IGNORE).float()
    logits = torch.where(ui > 0, torch.tensor(6.0), torch.tensor(-6.0))
    logits[0, 50:52, 50:52] = -6.0  # the crosshair is missed
    return logits, ui, labels


def test_a_missed_small_element_weighs_as_much_as_a_large_one():
    logits, ui, labels = _scene()
    term = element_recall_loss(logits, labels, num_labels=8)
    miss = F.softplus(torch.tensor(6.0)).item()  # BCE of one missed UI pixel
    hit = F.softplus(torch.tensor(-6.0)).item()
    assert term.item() == pytest.approx((miss + hit) / 2, rel=1e-5)  # two groups, each its own mean
    pooled = F.binary_cross_entropy_with_logits(logits[0], ui[0]).item()
    assert term.item() > 100 * pooled  # the pooled BCE barely sees 4 missed pixels of 4096
    logits[0, 50:52, 50:52] = 6.0
    assert element_recall_loss(logits, labels, num_labels=8).item() == pytest.approx(hit, rel=1e-5)


def test_groups_are_per_crop_and_background_is_ignored():
    logits, ui, labels = _scene()
    two = torch.cat([logits, torch.full_like(logits, -6.0)]), torch.cat([labels, labels])
    # the second crop misses everything: 4 groups, 3 of them missed
    miss, hit = F.softplus(torch.tensor(6.0)).item(), F.softplus(torch.tensor(-6.0)).item()
    assert element_recall_loss(*two, num_labels=8).item() == pytest.approx((3 * miss + hit) / 4, rel=1e-5)
    none = torch.full_like(labels, IGNORE)
    assert element_recall_loss(logits, none, num_labels=8).item() == 0.0


def test_segmenter_loss_adds_the_term_only_when_asked():
    logits, ui, labels = _scene()
    label_logits = torch.zeros(1, 8, 32, 32)
    base, parts = segmenter_loss(logits[:, None], label_logits, ui, labels)
    assert "element" not in parts
    more, parts = segmenter_loss(logits[:, None], label_logits, ui, labels, element_weight=0.5)
    assert more.item() == pytest.approx(base.item() + 0.5 * parts["element"], rel=1e-5)


def test_warm_start_loads_the_init_folders_weights(tmp_path):
    config = HudSegmenterConfig.tiny()
    torch.manual_seed(123)
    source = HudSegmenter(config)
    source.save_pretrained(str(tmp_path / "init"))
    from dataclasses import asdict

    fresh = SegmenterTask(data=[], val=[], cache_dir=str(tmp_path), model=asdict(config)).build_model()
    warm = SegmenterTask(
        data=[], val=[], cache_dir=str(tmp_path), model=asdict(config), init=str(tmp_path / "init")
    ).build_model()
    ref = source.state_dict()
    assert all(torch.equal(warm.state_dict()[k], v) for k, v in ref.items())
    assert not all(torch.equal(fresh.state_dict()[k], v) for k, v in ref.items())
    assert os.path.isfile(tmp_path / "init" / "hud_segmenter.json")


def _clip():
    """32 frames of 32x32 RGB: a moving world texture; a still 8x8 'sprite' (world) at the bottom
    and a still 6x6 UI panel at the top left, with still world along its lower rim.
    Returns the model input of frame 16 and the UI target."""
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (32, 32, 32, 3), dtype=np.uint8)  # every pixel changes each frame
    frames[:, 22:30, 12:20] = 90  # the sprite holds still
    frames[:, 1:7, 1:7] = 240  # the panel holds still
    frames[:, 7:9, 1:7] = 60  # and so does the world just under it
    median, spread = window_stats(frames)
    x = torch.from_numpy(assemble([frames[15], frames[16], frames[17]], median, spread))[None]
    ui = torch.zeros(1, 32, 32)
    ui[0, 1:7, 1:7] = 1
    return x, ui


def test_static_world_picks_the_still_world_pixels_only():
    x, ui = _clip()
    static = static_world(x, ui)
    assert static[0, 22:30, 12:20].all()  # the still sprite
    assert not static[0, 1:7, 1:7].any()  # still, but UI
    assert not static[0, 7:9, 1:7].any()  # still world, but on the panel's rim (2 px)
    assert static_world(x, ui, border=0)[0, 7:9, 1:7].all()
    moving = torch.ones(32, 32, dtype=torch.bool)
    moving[22:30, 12:20] = False
    moving[0:9, 0:9] = False
    assert static[0][moving].float().mean() < 0.01  # the moving world is not static
    # a frame far from the window's median is not static even where the spread is low
    x2 = x.clone()
    x2[0, 3:6, 22:30, 12:20] += 0.2
    assert not static_world(x2, ui)[0, 22:30, 12:20].any()


def test_static_world_term_weighs_those_pixels_extra():
    x, ui = _clip()
    static = static_world(x, ui)
    logits = torch.full((1, 32, 32), -4.0)
    logits[0, 22:30, 12:20] = 2.0  # the sprite is called UI: the false positive the term is for
    term = static_world_loss(logits, static)
    assert term.item() == pytest.approx(
        64 * F.softplus(torch.tensor(2.0)).item() / 1024
        + (static.sum().item() - 64) * F.softplus(torch.tensor(-4.0)).item() / 1024,
        rel=1e-5,
    )
    labels = torch.full((1, 32, 32), IGNORE, dtype=torch.long)
    labels[ui > 0] = 2
    label_logits = torch.zeros(1, 8, 16, 16)
    base, parts = segmenter_loss(logits[:, None], label_logits, ui, labels)
    assert "static_world" not in parts
    more, parts = segmenter_loss(logits[:, None], label_logits, ui, labels, static_weight=3.0, static=static)
    assert more.item() == pytest.approx(base.item() + 3.0 * term.item(), rel=1e-5)
    # weight 3 on a static world pixel = its BCE counted 4 times in the pooled BCE
    w = torch.ones(1, 32, 32) + 3.0 * static
    pooled = F.binary_cross_entropy_with_logits(logits, ui, weight=w).item()
    assert parts["bce"] + 3.0 * parts["static_world"] == pytest.approx(pooled, rel=1e-5)
    with pytest.raises(ValueError):
        segmenter_loss(logits[:, None], label_logits, ui, labels, static_weight=1.0)
