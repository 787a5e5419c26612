"""Child elements as an option, run records and retry counts: pure logic, no Ray.

The paper does not say whether each icon inside an inventory bar is judged as an element of its
own; `judge_children` decides, and this shows how Box-Micro and Track-All move with it on one
hand-made annotation and one scripted judgment.
"""

import pytest

from g2w import __version__
from g2w.cases.annotation import Annotation, FrameObject, Instance
from g2w.evaluate.metrics import compute_metrics
from g2w.evaluate.plan import make_plan
from g2w.evaluate.run_record import differences, retry_counts, run_record

# 10 fps, 15 frames -> samples at frames 0, 5, 10 (2 FPS). A bar with two icons, and a notice.
INSTANCES = {
    "bar": Instance("bar", "inventory", "weapon_bar", "persistent", None),
    "bar/s0_slot0": Instance("bar/s0_slot0", "inventory", "icon", "child", "bar"),
    "bar/s0_slot1": Instance("bar/s0_slot1", "inventory", "icon", "child", "bar"),
    "notice": Instance("notice", "screen_notice", "screen_notice", "transient", None),
}
BOXES = {
    "bar": (100, 300, 300, 340),
    "bar/s0_slot0": (110, 305, 140, 335),
    "bar/s0_slot1": (150, 305, 180, 335),
    "notice": (400, 20, 600, 60),
}
ANNOTATION = Annotation(
    640, 360, 10.0, 15, INSTANCES, {i: tuple(FrameObject(k, BOXES[k], 1.0) for k in INSTANCES) for i in range(15)}
)


def _judged(plan, present):
    """An "ok" record for the plan where every element is removed except (sample, instance) in `present`."""
    expected = plan.expected()
    elements = []
    for s in expected["samples"]:
        for e in s["elements"]:
            gone = (s["sample_id"], e["instance_id"]) not in present
            elements.append(
                {
                    "sample_id": s["sample_id"],
                    "element_id": e["element_id"],
                    "removal": "removed" if gone else "present",
                    "artifact": "none" if gone else "not_applicable",
                    "confidence": 0.9,
                    "note": "",
                }
            )
    frames = [
        {"sample_id": s["sample_id"], "preservation": "preserved", "confidence": 0.9, "note": ""}
        for s in expected["samples"]
    ]
    return {
        "case_id": "v",
        "split": "synthetic",
        "status": "ok",
        "reason": "",
        "method_fault": False,
        "expected": expected,
        "judgment": {"elements": elements, "frames": frames},
    }


def test_children_are_judged_only_when_asked_and_change_box_micro_and_track_all():
    without = make_plan(ANNOTATION, 15, 10.0, 15, 10.0, (1280, 720))
    with_ = make_plan(ANNOTATION, 15, 10.0, 15, 10.0, (1280, 720), judge_children=True)
    assert [e.instance_id for e in without.samples[0].elements] == ["bar", "notice"]
    assert [e.element_id for e in with_.samples[0].elements] == ["E0", "E1", "E2", "E3"]
    assert [e.element_id for e in without.samples[0].elements] == ["E0", "E3"]  # ids from the full table
    assert without.expected()["judge_children"] is False and with_.expected()["judge_children"] is True
    # The method leaves one icon visible in the middle sample; the judge calls the bar removed
    # there anyway (the bar's own pixels are gone), as a child-blind evaluation would.
    present = {("f0001", "bar/s0_slot1")}
    m_without = compute_metrics([_judged(without, present)])["splits"]["synthetic"]
    m_with = compute_metrics([_judged(with_, present)])["splits"]["synthetic"]
    assert (m_without["elements"], m_without["tracks"]) == (6, 2)
    assert m_without["Box-Micro"] == 100.0 and m_without["Track-All"] == 100.0
    assert (m_with["elements"], m_with["tracks"]) == (12, 4)
    assert m_with["Box-Micro"] == pytest.approx(100 * 11 / 12, abs=0.01)  # 91.67
    assert m_with["Track-All"] == 75.0  # the icon's track is incomplete
    assert m_with["UI"] == pytest.approx(100 * (1 + 0.75 + 1) / 3, abs=0.01)


def test_run_record_and_mixing_check():
    reference = run_record(
        {"judge": "reference", "version": 3, "thresholds": {}}, False, "p" * 64, (1280, 720), 2.0, 0, False
    )
    assert reference == {
        "canvas": "1280x720",
        "eval_fps": 2.0,
        "judge": "reference",
        "judge_endpoint": None,
        "judge_model": "reference v3",
        "prompt_sha256": None,
        "schema_retries": 0,
        "judge_children": False,
        "g2w_version": __version__,
    }
    openai = run_record(
        {"judge": "openai", "endpoint": "http://h/v1/chat/completions", "model": "vl-7b"},
        True,
        "p" * 64,
        (1920, 1080),
        2.0,
        2,
        True,
    )
    assert openai["judge_model"] == "vl-7b" and openai["prompt_sha256"] == "p" * 64
    assert differences({"a": reference, "b": dict(reference)}) == {}
    diff = differences({"a": reference, "b": openai})
    assert set(diff) == {"canvas", "judge", "judge_model", "prompt_sha256", "judge_children"}
    assert diff["canvas"] == {"1280x720": ["a"], "1920x1080": ["b"]}
    assert differences({"a": reference, "b": {**reference, "schema_retries": 3}}) == {}  # reported, not compared
    assert differences({"a": None}) == {} and "run record" in differences({"a": None, "b": None})


def test_retry_counts_say_how_many_videos_needed_more_than_one_call():
    def rec(status, calls):
        return {"status": status, "attempts": [{}] * calls}

    records = [rec("ok", 1), rec("ok", 2), rec("invalid", 3), rec("ok", 1), rec("error", 0)]
    assert retry_counts(records, 2) == {
        "schema_retries": 2,
        "videos_judged": 4,
        "videos_retried": 2,
        "extra_calls": 3,
        "invalid_videos": 1,
    }
