"""The segmenter's mask rules (`g2w.segment.mask_rules`): one protocol, an ordered list from configuration."""

import numpy as np
import pytest

from g2w.segment.centre_mark import CentreMark
from g2w.segment.fullres import FullResTiles
from g2w.segment.mask_rules import (
    DETECT_RULES,
    REMOVAL_RULES,
    CentreMarkRule,
    StillDetailRule,
    apply_rules,
    parse_rules,
)
from g2w.segment.predict import FramePrediction, full_mask
from g2w.segment.still_detail import StillDetail


def test_rules_are_parsed_in_order_with_their_values():
    assert parse_rules(REMOVAL_RULES) == (CentreMarkRule(), StillDetailRule())
    assert parse_rules(DETECT_RULES) == (CentreMarkRule(),)
    assert parse_rules("still_detail, centre_mark") == (StillDetailRule(), CentreMarkRule())
    assert parse_rules("none") == parse_rules("") == parse_rules(None) == ()
    rules = parse_rules(REMOVAL_RULES)
    assert parse_rules(rules) == rules


@pytest.mark.parametrize(
    "spec, message",
    [
        ("crosshair", "unknown mask rule"),
        ("coarse_support:0.5", "unknown mask rule"),  # dropped: it cost IoU on every real game
        ("support_motion:0.75", "unknown mask rule"),
        ("centre_mark:2", "takes no value"),
        ("still_detail:high", "not a number"),
    ],
)
def test_a_bad_rule_list_is_refused_with_a_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_rules(spec)


def _prediction_with_evidence(width=128, height=64):
    """A refinement with a widget's core, a centre mark, and the window's still detail: a text
    line's rest touching the core and a detached still edge."""
    mark = CentreMark(60, 28, np.full((8, 8), 255, np.uint8))
    tiles = np.array([[r, c] for r in range(2) for c in range(4)])
    still = np.zeros((len(tiles), 32, 32), bool)
    still[0, 4:12, 12:24] = True  # tile (0, 0): the rest of the line, next to the core
    still[3, 20:28, 4:12] = True  # tile (0, 3): a still world edge, apart from everything
    fr = FullResTiles(
        width,
        height,
        32,
        tiles,
        np.full((len(tiles), 32, 32), -20, np.float32),
        mark,
        StillDetail.of(still, tiles, 32, width, height),
    )
    fr.logits[0, 4:12, 4:12] = 20  # the refiner keeps the widget's core
    ui = np.zeros((height // 4, width // 4), np.float32)
    return FramePrediction(0, ui, np.zeros((21, height // 8, width // 8), np.float32), fr)


def test_each_rule_does_its_part_in_the_configured_order():
    pred = _prediction_with_evidence()
    refined = full_mask(pred, 128, 64, rules="none")
    assert refined.sum() == 64 * 255  # the refiner's 8x8 core alone
    marked = full_mask(pred, 128, 64, rules="centre_mark")
    assert marked[28:36, 60:68].all() and marked.sum() == 128 * 255
    joined = full_mask(pred, 128, 64, rules="still_detail")
    assert joined[4:12, 4:24].all()  # the line's rest joins the core it touches
    assert not joined[20:28, 100:108].any()  # the detached edge stays out
    assert not joined[28:36, 60:68].any()
    both = full_mask(pred, 128, 64, rules=REMOVAL_RULES)
    assert np.array_equal(both, np.maximum(marked, joined))
    assert ((both > 0) | (full_mask(pred, 128, 64) == 0)).all()  # detect's mask is inside the removal mask


def test_rules_without_their_evidence_change_nothing_and_never_write_the_given_mask():
    pred = _prediction_with_evidence()
    mask = np.zeros((64, 128), np.uint8)
    mask[4:12, 4:12] = 255
    before = mask.copy()
    for rule in parse_rules(REMOVAL_RULES):
        apply_rules([rule], mask, pred, 128, 64)
        assert np.array_equal(mask, before)
    other_size = apply_rules(parse_rules(REMOVAL_RULES), mask, pred, 256, 128)
    assert other_size is mask  # a refinement made for another size is not evidence for this one
    bare = FramePrediction(0, pred.ui, pred.labels)
    assert apply_rules(parse_rules(REMOVAL_RULES), mask, bare, 128, 64) is mask  # no refinement at all
