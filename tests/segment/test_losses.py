"""The per-element loss term and the warm start (pure torch, no Ray)."""

import os

import pytest
import torch
import torch.nn.functional as F

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.data import IGNORE
from g2w.segment.losses import element_recall_loss, segmenter_loss
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
    warm = SegmenterTask(data=[], val=[], cache_dir=str(tmp_path), model=asdict(config),
                         init=str(tmp_path / "init")).build_model()
    ref = source.state_dict()
    assert all(torch.equal(warm.state_dict()[k], v) for k, v in ref.items())
    assert not all(torch.equal(fresh.state_dict()[k], v) for k, v in ref.items())
    assert os.path.isfile(tmp_path / "init" / "hud_segmenter.json")
