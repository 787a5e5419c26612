"""The reference judge: baseline ordering on the fixture, schema conformance, calibration."""

import json

import pytest

from g2w.cases.annotation import load_annotation
from g2w.cases.canvas import DEFAULT_CANVAS
from g2w.cases.case import load_cases
from g2w.evaluate.calibration import calibrate, configs
from g2w.evaluate.canonical_frames import read_canonical
from g2w.evaluate.judges.reference import Thresholds, judge_frames
from g2w.evaluate.metrics import compute_metrics
from g2w.evaluate.plan import make_plan
from g2w.evaluate.schema import validate
from g2w.video import probe


def _judge_all(synth_out, edited_dir):
    records = []
    for case in load_cases(synth_out):
        ann = load_annotation(case.annotation)
        edited = case.edited_path(edited_dir)
        info = probe(edited)
        plan = make_plan(ann, ann.frame_count, ann.fps, info.frame_count, info.fps, DEFAULT_CANVAS)
        idx = [s.source_index for s in plan.samples]
        judgment = judge_frames(
            plan,
            read_canonical(case.source, idx, plan.canvas),
            read_canonical(edited, [s.edited_index for s in plan.samples], plan.canvas),
            read_canonical(case.reference, idx, plan.canvas),
            Thresholds(),
        )
        check = validate(json.dumps(judgment), plan.expected_pairs(), plan.sample_ids())
        assert check.ok, check.errors  # exactly the MLLM judge's schema
        records.append(
            {
                "case_id": case.case_id,
                "split": case.split,
                "status": "ok",
                "reason": "",
                "expected": plan.expected(),
                "judgment": judgment,
            }
        )
    return compute_metrics(records)["splits"]["synthetic"]


@pytest.fixture(scope="module")
def scores(synth_out, edits):
    return {method: _judge_all(synth_out, folder) for method, folder in edits.items()}


def test_identity_removes_nothing_and_preserves_everything(scores):
    assert scores["identity"]["AAR"] == pytest.approx(0, abs=1)
    assert scores["identity"]["UI"] == pytest.approx(0, abs=1)
    assert scores["identity"]["BG"] == pytest.approx(100, abs=1)


def test_clean_reference_as_edit_scores_highest(scores):
    assert scores["reference"]["AAR"] == pytest.approx(100, abs=1)
    assert scores["reference"]["Clean"] == pytest.approx(100, abs=1)
    assert scores["reference"]["BG"] == pytest.approx(100, abs=1)


def test_telea_lies_in_between(scores):
    assert scores["identity"]["AAR"] < scores["telea-gt"]["AAR"] < scores["reference"]["AAR"]
    # Telea removes the UI (it knows the mask) but its diffusion fill leaves visible artifacts.
    assert scores["telea-gt"]["UI"] > 80 and scores["telea-gt"]["Clean"] < scores["telea-gt"]["UI"]
    assert scores["telea-gt"]["Track-Clean"] < scores["telea-gt"]["Track-All"]


def test_quick_calibration_grid_is_judged_correctly():
    rows = calibrate(configs(quick=True))
    assert len({(r["background"], r["widget"]) for r in rows}) >= 8
    wrong = [(r["edit"], r["verdict"], r["background"], r["widget"]) for r in rows if not r["ok"]]
    assert len(wrong) <= 0.05 * len(rows), wrong
