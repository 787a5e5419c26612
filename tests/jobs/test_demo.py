"""The demo job on local Ray, small: videos -> Ray Data probe -> manifest, summary, report."""

import json

import pyarrow.parquet as pq

from g2w.jobs.demo import run_demo
from g2w.jobs.probe import run_probe


def test_demo_runs_end_to_end(ray_local, tmp_path):
    summary = run_demo(tmp_path, count=2, seed=1, duration_s=3.0)
    table = pq.read_table(tmp_path / "sources.parquet").to_pylist()
    assert len(table) == 2 and {r["status"] for r in table} == {"ok"}
    for row in table:
        truth = json.loads(open(row["path"][:-4] + ".json").read())
        assert row["frame_count"] == truth["frame_count"]
    assert summary["ok"] == 2
    assert json.loads((tmp_path / "summary.json").read_text())["sources"] == 2
    assert "contact_sheet.png" in (tmp_path / "report.html").read_text()
    assert (tmp_path / "contact_sheet.png").stat().st_size > 1000


def test_probe_job_keeps_bad_inputs_as_rows(ray_local, tmp_path, make_video):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    summary = run_probe([make_video(frames=4), str(bad)], tmp_path / "sources.parquet")
    assert (summary["ok"], summary["error"], summary["errors_by_reason"]) == (1, 1, {"not_media": 1})
    assert pq.read_table(tmp_path / "sources.parquet").num_rows == 2
