import pyarrow.parquet as pq

from g2w.jobs.probe import run_probe


def test_probe_job_keeps_bad_inputs_as_rows(ray_local, tmp_path, make_video):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all")
    summary = run_probe([make_video(frames=4), str(bad)], tmp_path / "sources.parquet")
    assert (summary["ok"], summary["error"], summary["errors_by_reason"]) == (1, 1, {"not_media": 1})
    assert pq.read_table(tmp_path / "sources.parquet").num_rows == 2
