"""Judge-vs-human agreement on hand-made labels whose F1 and κ are worked out by hand below."""

import json

import pytest

from g2w.cli import main
from g2w.evaluate.human_agreement import cohen_kappa, human_agreement, read_human_labels
from g2w.evaluate.records import read_records

# (judge, human) removal verdicts of ten elements in two videos.
REMOVAL = [("removed", "removed")] * 4 + [
    ("removed", "present"),
    ("present", "removed"),
    ("uncertain", "removed"),
    ("present", "present"),
    ("present", "present"),
    ("uncertain", "uncertain"),
]
# artifact verdicts of the four elements both call removed (the first four)
ARTIFACT = [("none", "none"), ("none", "minor"), ("minor", "minor"), ("major", "major")]
PRESERVATION = [
    ("preserved", "preserved"),
    ("preserved", "minor_change"),
    ("major_change", "major_change"),
    ("minor_change", "minor_change"),
]


def _artifact(i, side):
    if i < 4:
        return ARTIFACT[i][side]
    return "minor" if REMOVAL[i][side] == "removed" else "not_applicable"


def _files(tmp_path):
    """judgments.jsonl (video a: elements 0-4 and frames 0-1; video b: the rest) and the labels."""
    records, labels = [], []
    for case, idx, frames in (("a", range(0, 5), range(0, 2)), ("b", range(5, 10), range(2, 4))):
        judge = {"elements": [], "frames": []}
        human = {"case_id": case, "elements": [], "frames": []}
        for i in idx:
            sid, eid = f"f{i % 2:04d}", f"E{i}"
            judge["elements"].append(
                {
                    "sample_id": sid,
                    "element_id": eid,
                    "removal": REMOVAL[i][0],
                    "artifact": _artifact(i, 0),
                    "confidence": 0.8,
                    "note": "",
                }
            )
            human["elements"].append(
                {"sample_id": sid, "element_id": eid, "removal": REMOVAL[i][1], "artifact": _artifact(i, 1)}
            )
        for k in frames:
            sid = f"f{k % 2:04d}"
            judge["frames"].append(
                {"sample_id": sid, "preservation": PRESERVATION[k][0], "confidence": 0.8, "note": ""}
            )
            human["frames"].append({"sample_id": sid, "preservation": PRESERVATION[k][1]})
        records.append({"case_id": case, "split": "wild", "status": "ok", "reason": "", "judgment": judge})
        labels.append(human)
    # a label for a video the judge never judged validly, and one for an element it was not asked about
    records.append({"case_id": "c", "split": "wild", "status": "invalid", "reason": "schema_invalid", "judgment": None})
    labels.append(
        {
            "case_id": "c",
            "elements": [{"sample_id": "f0000", "element_id": "E0", "removal": "removed", "artifact": "none"}],
        }
    )
    labels[0]["elements"].append(
        {"sample_id": "f0000", "element_id": "E99", "removal": "present", "artifact": "not_applicable"}
    )
    run = tmp_path / "run"
    run.mkdir()
    (run / "judgments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    human = tmp_path / "human.jsonl"
    human.write_text("".join(json.dumps(v) + "\n" for v in labels))
    return str(run), str(human)


def test_removal_artifact_and_preservation_agreement_match_hand_computed_values(tmp_path):
    run, human = _files(tmp_path)
    out = human_agreement(read_records(run), read_human_labels(human))
    assert out["videos"] == 2 and out["unmatched_element_labels"] == 2 and out["unmatched_frame_labels"] == 0
    r = out["removal"]
    # TP 4, FP 1, FN 2: precision 0.8, recall 4/6, F1 8/11
    assert r["n"] == 10 and r["precision"] == 0.8 and r["recall"] == pytest.approx(0.6667, abs=1e-4)
    assert r["F1"] == pytest.approx(8 / 11, abs=1e-4)
    # agreement 7/10; chance (5*6 + 3*3 + 2*1)/100 = 0.41; kappa 0.29/0.59
    assert r["agreement"] == 0.7 and r["kappa"] == pytest.approx(0.29 / 0.59, abs=1e-4)
    a = out["artifact"]
    # "none": TP 1, FP 1, FN 0 -> F1 2/3; agreement 3/4; chance (2*1 + 1*2 + 1*1)/16 -> kappa 0.4375/0.6875
    assert a["n"] == 4 and a["F1"] == pytest.approx(2 / 3, abs=1e-4) and a["agreement"] == 0.75
    assert a["kappa"] == pytest.approx(0.4375 / 0.6875, abs=1e-4)
    p = out["preservation"]
    assert p["n"] == 4 and p["agreement"] == 0.75 and p["kappa"] == pytest.approx(0.4375 / 0.6875, abs=1e-4)
    assert "F1" not in p


def test_kappa_edge_cases():
    assert cohen_kappa([("a", "a"), ("b", "b")]) == 1.0
    assert cohen_kappa([("a", "b"), ("b", "a")]) == -1.0
    assert cohen_kappa([("a", "a"), ("a", "a")]) is None  # chance agreement is total: undefined
    assert cohen_kappa([]) is None


def test_command_prints_the_table_and_refuses_bad_labels(tmp_path, capsys):
    run, human = _files(tmp_path)
    out = tmp_path / "agreement.json"
    assert main(["judge-human-agreement", "--judgments", run, "--human", human, "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| removal | 10 | 0.700 | 0.727 (removed) | 0.492 |" in printed
    assert json.loads(out.read_text())["artifact"]["n"] == 4
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        json.dumps(
            {
                "case_id": "a",
                "elements": [{"sample_id": "f0000", "element_id": "E0", "removal": "gone", "artifact": "none"}],
            }
        )
        + "\n"
    )
    assert main(["judge-human-agreement", "--judgments", run, "--human", str(bad)]) == 2
    assert "bad.jsonl:1: removal must be one of" in capsys.readouterr().err
