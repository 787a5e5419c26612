"""The remove and evaluate jobs, each once on a real local Ray: outputs, error rows, report."""

import json
import os

import pyarrow.parquet as pq

from g2w.jobs.evaluate import run_evaluate
from g2w.jobs.remove import run_remove


def test_remove_then_evaluate_on_ray(ray_local, synth_out, tmp_path):
    edits = tmp_path / "identity"
    summary = run_remove("identity", synth_out, str(edits))
    assert (summary["cases"], summary["ok"], summary["error"]) == (2, 2, 0)
    assert json.loads((edits / "method.json").read_text()) == {
        "method": "identity",
        "mask": False,
        "ref_pt": False,
        "options": {},
    }
    assert sorted(r["case_id"] for r in pq.read_table(edits / "manifest.parquet").to_pylist()) == ["s000", "s001"]
    assert (edits / "report.html").exists() and (edits / "summary.json").exists()

    (edits / "s001.mp4").write_bytes(b"\x00" * 100)  # a broken output for one case
    out = tmp_path / "eval"
    summary = run_evaluate(synth_out, str(edits), str(out), judge="reference")
    assert (summary["cases"], summary["ok"], summary["error"]) == (2, 1, 1)

    records = [json.loads(line) for line in (out / "judgments.jsonl").read_text().splitlines()]
    assert [r["case_id"] for r in records] == ["s000", "s001"]  # one record per case, sorted
    ok, broken = records
    assert ok["status"] == "ok" and ok["validation"]["ok"] and ok["run_config"]["canvas"] == [1280, 720]
    pairs = sum(len(s["elements"]) for s in ok["expected"]["samples"])
    assert len(os.listdir(ok["evidence_dir"])) == len(ok["expected"]["samples"]) + pairs + 1  # PNGs + evidence.json
    assert broken["status"] == "error" and broken["method_fault"] and broken["reason"].startswith("edited_")

    metrics = json.loads((out / "metrics.json").read_text())
    syn = metrics["splits"]["synthetic"]
    assert syn["AAR"] == 0.0 and syn["UI"] == 0.0  # identity removes nothing (and s001 failed)
    assert syn["per_video"]["s000"]["BG"] == 100.0 and syn["per_video"]["s001"]["BG"] == 0.0
    assert syn["Coverage"] == 0.5 and metrics["method"]["model"] == "identity"
    assert "| identity | ✘ | ✘ |" in (out / "table.md").read_text()
    run = metrics["run"]  # what was used, so runs that differ are never tabulated together
    assert (run["canvas"], run["judge"], run["schema_retries"], run["judge_children"]) == (
        "1280x720",
        "reference",
        0,
        False,
    )
    assert run["judge_model"].startswith("reference v") and run["prompt_sha256"] is None and run["g2w_version"]
    assert metrics["retries"] == {
        "schema_retries": 0,
        "videos_judged": 1,
        "videos_retried": 0,
        "extra_calls": 0,
        "invalid_videos": 0,
    }
    rows = pq.read_table(out / "results.parquet").to_pylist()
    assert [(r["case_id"], r["status"]) for r in rows] == [("s000", "ok"), ("s001", "error")]
    assert all(r["canvas"] == "1280x720" and r["judge_model"] == run["judge_model"] for r in rows)
    assert [r["judge_calls"] for r in rows] == [1, 0]
    report = (out / "report.html").read_text()
    assert "s000" in report and "edited_" in report and "evidence/s000/0001.png" in report
