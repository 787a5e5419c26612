"""Removal and evaluation with cases, edits and evidence in a bucket (moto's S3 on loopback),
through the steps a Ray worker runs (no Ray): each worker fetches its own inputs to a local
temporary folder, evidence goes to the bucket, and nothing lands in the working directory."""

import json

import numpy as np
import pyarrow.fs as pafs

from g2w.cases.case import load_cases
from g2w.evaluate.judging import JudgeCases, PrepareCases
from g2w.evaluate.metrics import compute_metrics
from g2w.evaluate.prompt import load_prompt
from g2w.evaluate.scores_page import write_report
from g2w.io import storage
from g2w.jobs.evaluate import method_info
from g2w.jobs.remove import RemoveCases


def _mtimes(prefix: str) -> dict:
    fs, inner = pafs.FileSystem.from_uri(prefix)
    return {i.path: i.mtime for i in fs.get_file_info(pafs.FileSelector(inner, recursive=True))}


def test_remove_and_evaluate_read_and_write_a_bucket(synth_out, s3_bucket, tmp_path, monkeypatch):
    cases_uri = f"{s3_bucket}/synth"
    storage.upload_tree(synth_out, cases_uri)
    cases = load_cases(cases_uri)
    assert [c.case_id for c in cases] == [c.case_id for c in load_cases(synth_out)]
    assert all(c.source.startswith(cases_uri + "/samples/") for c in cases)
    batch = {"case": np.array([c.to_json() for c in cases], dtype=object)}
    monkeypatch.chdir(tmp_path)

    edits = f"{s3_bucket}/edits"
    removed = RemoveCases("identity", edits)(batch)
    assert list(removed["status"]) == ["ok"] * len(cases)
    storage.write_json(f"{edits}/method.json", {"method": "identity", "mask": False, "ref_pt": False})

    out = f"{s3_bucket}/eval"
    prompt = load_prompt()
    prepare = PrepareCases(edits, f"{out}/evidence", (640, 360), 2.0)
    judge = JudgeCases("reference", {}, prompt.text, prompt.source, f"{out}/cache", concurrency=None)
    records = [json.loads(str(r)) for r in judge(prepare(batch))["record"]]
    assert [r["status"] for r in records] == ["ok"] * len(cases) and not any(r["cached"] for r in records)
    for rec in records:
        assert rec["evidence_dir"] == f"{out}/evidence/{rec['case_id']}"
        files = storage.list_files(rec["evidence_dir"])
        assert (
            len(files)
            == len(rec["expected"]["samples"]) + sum(len(s["elements"]) for s in rec["expected"]["samples"]) + 1
        )  # PNGs + evidence.json
    assert len(_mtimes(f"{out}/cache")) > len(cases)  # one judged result per case (plus its sub-prefixes)

    evidence = _mtimes(f"{out}/evidence")
    again = [json.loads(str(r)) for r in judge(prepare(batch))["record"]]
    assert all(r["cached"] for r in again) and [r["judgment"] for r in again] == [r["judgment"] for r in records]
    assert _mtimes(f"{out}/evidence") == evidence  # found in the bucket, not rebuilt or uploaded again

    assert method_info(edits)["model"] == "identity"
    with storage.staged_dir(out) as local:  # the driver's report links the evidence in the bucket
        write_report(local, records, compute_metrics(records), {"cases": len(records)}, "", root=out)
    html = storage.read_bytes(f"{out}/report.html").decode()
    assert f'src="evidence/{records[0]["case_id"]}/0001.png"' in html
    assert list(tmp_path.iterdir()) == []
