"""Metrics (J.5, Tables 3-4) computed by hand on small scripted judgments."""

import pytest

from g2w.evaluate.metrics import compute_metrics, results_tables


def _expected(samples):
    return {
        "canvas": [1280, 720],
        "eval_fps": 2.0,
        "samples": [
            {
                "sample_id": sid,
                "t": k / 2,
                "source_index": 15 * k,
                "edited_index": 15 * k,
                "elements": [{"element_id": e, "instance_id": inst, "label": "other_hud"} for e, inst in els],
            }
            for k, (sid, els) in enumerate(samples)
        ],
    }


def _el(sid, eid, removal, artifact):
    return {
        "sample_id": sid,
        "element_id": eid,
        "removal": removal,
        "artifact": artifact,
        "confidence": 0.9,
        "note": "",
    }


def _fr(sid, preservation):
    return {"sample_id": sid, "preservation": preservation, "confidence": 0.9, "note": ""}


def _record(case_id, split, status, expected, judgment=None, method_fault=False, reason=""):
    return {
        "case_id": case_id,
        "split": split,
        "status": status,
        "reason": reason,
        "method_fault": method_fault,
        "expected": expected,
        "judgment": judgment,
    }


RECORDS = [
    # A: two elements over two frames, a third frame without elements, one uncertain element.
    _record(
        "A",
        "synthetic",
        "ok",
        _expected([("f0000", [("E0", "a"), ("E1", "b")]), ("f0001", [("E0", "a"), ("E1", "b")]), ("f0002", [])]),
        {
            "elements": [
                _el("f0000", "E0", "removed", "none"),
                _el("f0000", "E1", "removed", "minor"),
                _el("f0001", "E0", "removed", "major"),
                _el("f0001", "E1", "uncertain", "not_applicable"),
            ],
            "frames": [_fr("f0000", "preserved"), _fr("f0001", "minor_change"), _fr("f0002", "major_change")],
        },
    ),
    # B: the judge never gave a valid reply: scored as failure.
    _record("B", "synthetic", "invalid", _expected([("f0000", [("E0", "x")]), ("f0001", [])]), reason="schema_invalid"),
    # C: the edit is missing: the method's failure, scored zero.
    _record(
        "C", "synthetic", "error", _expected([("f0000", [("E0", "y")])]), method_fault=True, reason="missing_edited"
    ),
    # D: the judge was unreachable: not the method's fault, excluded (lowers coverage).
    _record("D", "synthetic", "error", _expected([("f0000", [("E0", "q")])]), reason="judge_unavailable"),
    # E: a wild video removed cleanly.
    _record(
        "E",
        "wild",
        "ok",
        _expected([("f0000", [("E0", "z")])]),
        {"elements": [_el("f0000", "E0", "removed", "none")], "frames": [_fr("f0000", "preserved")]},
    ),
]


def test_synthetic_split_by_hand():
    m = compute_metrics(RECORDS)["splits"]["synthetic"]
    # A: frames R = (1, 0.5), C = (0.5, 0), A = (0.75, 0) -> UI 0.75, Clean 0.25, AAR 0.375; BG (1+0.5+0)/3.
    # B and C score 0 everywhere; D is left out. Video macro over A, B, C:
    assert m["UI"] == pytest.approx(25.0)
    assert m["Clean"] == pytest.approx(8.33)
    assert m["AAR"] == pytest.approx(12.5)
    assert m["BG"] == pytest.approx(16.67)
    assert m["Uncertain"] == pytest.approx(0.25)  # 1 of A's 4 element verdicts
    assert m["Frame-Macro"] == pytest.approx(37.5)  # pooled R_t: 1, 0.5 (A), 0 (B), 0 (C)
    assert m["Box-Micro"] == pytest.approx(50.0)  # r: 1, 1, 1, 0 (A), 0 (B), 0 (C)
    assert m["Track-All"] == pytest.approx(25.0)  # tracks a (complete), b, x, y
    assert m["Track-Clean"] == pytest.approx(0.0)  # a had a major artifact at f0001
    assert m["Coverage"] == pytest.approx(0.25)
    assert (m["cases"], m["scored_videos"], m["tracks"]) == (4, 3, 4)
    assert m["per_video"]["A"]["AAR"] == pytest.approx(37.5)
    assert "D" not in m["per_video"] and m["reason_counts"]["judge_unavailable"] == 1


def test_overall_combines_both_splits():
    metrics = compute_metrics(RECORDS)
    wild = metrics["splits"]["wild"]
    assert (wild["AAR"], wild["UI"], wild["Clean"], wild["BG"], wild["Uncertain"]) == (100.0, 100.0, 100.0, 100.0, 0.0)
    assert metrics["Overall"] == pytest.approx((12.5 + 16.67 + 100 + 100) / 4, abs=0.01)
    assert compute_metrics(RECORDS[:1])["Overall"] is None  # one split only


def test_frames_without_elements_count_only_for_background():
    rec = _record(
        "F",
        "synthetic",
        "ok",
        _expected([("f0000", []), ("f0001", [])]),
        {"elements": [], "frames": [_fr("f0000", "preserved"), _fr("f0001", "invalid")]},
    )
    m = compute_metrics([rec])["splits"]["synthetic"]
    assert m["AAR"] is None and m["removal_videos"] == 0 and m["BG"] == 50.0


def test_table_columns_follow_table_3_and_4():
    metrics = compute_metrics(RECORDS)
    text = results_tables([{"model": "telea-gt", "mask": True, "ref_pt": False, "splits": metrics["splits"]}])
    header = text.splitlines()[2]
    assert header == (
        "| Model | Mask | Ref P.T. | Overall | S AAR | S UI | S Clean | S BG | S Uncertain | "
        "W AAR | W UI | W Clean | W BG | W Uncertain |"
    )
    row = text.splitlines()[4]
    assert row.startswith("| telea-gt | ✔ | ✘ | 57.29 | 12.50 | 25.00 | 8.33 | 16.67 | 0.25 | 100.00 |")
    assert "| Model | Mask | Ref P.T. | S Frame-Macro | S Box-Micro | S Track-All | S Track-Clean |" in text
