"""The segmenter's mask rules (`g2w.segment.mask_rules`): one protocol, an ordered list from configuration."""

import cv2
import numpy as np
import pytest

from g2w.segment.centre_mark import CentreMark
from g2w.segment.fullres import FullResTiles
from g2w.segment.mask_rules import (
    REMOVAL_RULES,
    CentreMarkRule,
    CoarseSupportRule,
    StillDetailRule,
    SupportMotionRule,
    apply_rules,
    parse_rules,
    supported_mask,
)
from g2w.segment.predict import FramePrediction, full_mask
from g2w.segment.support_motion import WindowSpread


def _u8(p: np.ndarray) -> np.ndarray:
    return np.clip(p * 255 + 0.5, 0, 255).astype(np.uint8)


def test_the_coarse_support_widens_a_found_widget_and_nothing_else():
    # model resolution 16x32, video 64x128: a translucent panel the refiner only half kept
    prob = np.zeros((16, 32), np.float32)
    prob[2:8, 2:14] = 0.8  # the panel, as the network sees it
    prob[10:14, 20:28] = 0.8  # a blob the refiner rejected (it found nothing there)
    refined = np.zeros((64, 128), np.uint8)
    refined[12:24, 16:40] = 255  # the panel's text, kept by the refiner
    got = supported_mask(refined, _u8(prob), 0.3) > 0
    assert got[12:24, 16:40].all()  # nothing the refiner kept is lost
    assert got[10:30, 10:54].all()  # the panel's soft rest joins it
    assert not got[40:56, 80:112].any()  # the detached blob stays out
    assert not got[:, 60:].any()
    # below the support level nothing is added; with no refined pixel, nothing at all
    assert np.array_equal(supported_mask(refined, _u8(prob * 0.3), 0.3), refined)
    assert not supported_mask(np.zeros_like(refined), _u8(prob), 0.3).any()


def test_support_reaches_a_faint_part_only_through_a_connected_path():
    prob = np.zeros((10, 30), np.float32)
    prob[3:7, 2:8] = 0.9
    prob[3:7, 8:14] = 0.35  # the widget's faint tail, touching it
    prob[3:7, 20:26] = 0.35  # as faint, but apart
    refined = (cv2.resize(_u8(prob), (30, 10)) >= 128).astype(np.uint8) * 255  # same size: only the confident part
    got = supported_mask(refined, _u8(prob), 0.3) > 0
    assert got[3:7, 2:14].all() and not got[:, 15:].any()
    # the same through the rule list, without a refinement: the plain threshold, widened by its support
    pred = FramePrediction(0, prob, np.zeros((21, 5, 15), np.float32))
    assert np.array_equal(full_mask(pred, 30, 10, rules="coarse_support:0.3") > 0, got)


def test_rules_are_parsed_in_order_with_their_values():
    rules = parse_rules(REMOVAL_RULES)
    assert rules == (CentreMarkRule(), CoarseSupportRule(0.5), SupportMotionRule(0.75), StillDetailRule())
    assert parse_rules("still_detail, centre_mark") == (StillDetailRule(), CentreMarkRule())
    assert parse_rules("none") == parse_rules("") == parse_rules(None) == ()
    assert parse_rules(rules) == rules


@pytest.mark.parametrize(
    "spec, message",
    [("crosshair", "unknown mask rule"), ("centre_mark:2", "takes no value"), ("coarse_support:high", "not a number")],
)
def test_a_bad_rule_list_is_refused_with_a_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_rules(spec)


def _prediction_with_evidence(width=128, height=64):
    """A refinement with a widget's core and a centre mark; a coarse probability covering the
    widget's still rest and the moving world around the mark; the window's spread to tell them apart."""
    mark = CentreMark(60, 28, np.full((8, 8), 255, np.uint8))
    tiles = np.array([[r, c] for r in range(2) for c in range(4)])
    spread = np.full((len(tiles), 32, 32), 80, np.uint8)  # the world moves: 20 grey levels
    spread[0] = 0  # tile (0, 0): the widget and its support are still
    fr = FullResTiles(
        width,
        height,
        32,
        tiles,
        np.full((len(tiles), 32, 32), -20, np.float32),
        mark,
        spread=WindowSpread(width, height, 32, tiles, spread),
    )
    fr.logits[0, 4:12, 4:12] = 20  # the refiner keeps the widget's core
    ui = np.zeros((height // 4, width // 4), np.float32)
    ui[0:5, 0:5] = 0.9  # its soft rest (still)
    ui[6:10, 14:18] = 0.9  # around the centre mark: world (moving) the coarse map bleeds onto
    return FramePrediction(0, ui, np.zeros((21, height // 8, width // 8), np.float32), fr)


def test_each_rule_does_its_part_and_support_motion_filters_what_the_support_added():
    pred = _prediction_with_evidence()
    refined = full_mask(pred, 128, 64, rules="none")
    assert refined.sum() == 64 * 255  # the refiner's 8x8 core alone
    marked = full_mask(pred, 128, 64, rules="centre_mark")
    assert marked[28:36, 60:68].all() and marked.sum() == 128 * 255
    supported = full_mask(pred, 128, 64, rules="centre_mark,coarse_support:0.5")
    assert supported[0:18, 0:18].all() and supported[26:38, 58:70].all()  # the widget's rest, the world by the mark
    filtered = full_mask(pred, 128, 64, rules="centre_mark,coarse_support:0.5,support_motion:0.75")
    assert filtered[0:18, 0:18].all()  # the still part the support added stays
    assert (
        filtered[28:36, 60:68].all() and filtered[24:40, 56:72].sum() == 64 * 255
    )  # the moving one goes, not the mark
    assert np.array_equal(full_mask(pred, 128, 64, rules="support_motion:0.75"), refined)  # nothing added before it


def test_rules_without_their_evidence_change_nothing_and_never_write_the_given_mask():
    pred = _prediction_with_evidence()
    mask = np.zeros((64, 128), np.uint8)
    mask[4:12, 4:12] = 255
    before = mask.copy()
    for rule in parse_rules(REMOVAL_RULES):
        apply_rules([rule], mask, pred, 128, 64)
        assert np.array_equal(mask, before)
    other_size = apply_rules(parse_rules("centre_mark,support_motion:0.75,still_detail"), mask, pred, 256, 128)
    assert other_size is mask  # a refinement made for another size is not evidence for this one
