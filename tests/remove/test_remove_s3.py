"""The remove job's worker step writing edits straight to a bucket (moto), without Ray: what a
Ray worker runs, and what a rerun finds there."""

import numpy as np

from g2w.cases.case import load_cases
from g2w.io import storage
from g2w.jobs.remove import MANIFEST_SCHEMA, RemoveCases, _report
from g2w.video import probe


def test_edits_are_uploaded_by_the_worker_and_skipped_on_rerun(synth_out, s3_bucket, tmp_path, monkeypatch):
    out = f"{s3_bucket}/edits"
    cases = load_cases(synth_out)
    step = RemoveCases("identity", out)
    batch = {"case": np.array([c.to_json() for c in cases], dtype=object)}
    monkeypatch.chdir(tmp_path)  # nothing may be written to local disk under a URI-like name
    first = step(batch)
    assert list(first["status"]) == ["ok"] * len(cases) and not first["skipped"].any()
    assert storage.list_files(out, ".mp4") == sorted(c.edited_path(out) for c in cases)
    for case, frames in zip(cases, first["frames"]):
        assert probe(case.edited_path(out)).frame_count == frames == probe(case.source).frame_count
    again = step(batch)
    assert again["skipped"].all() and (again["frames"] == 0).all()
    assert list(tmp_path.iterdir()) == []

    rows = [{k: first[k][i].item() for k in MANIFEST_SCHEMA.names} for i in range(len(cases))]
    with storage.staged_dir(out) as local:  # the driver's report reads the edits back from the bucket
        _report(local, rows, {c.case_id: c for c in cases}, {"method": "identity"})
    assert {f"{out}/report.html", f"{out}/contact_sheet.png"} <= set(storage.list_files(out))
