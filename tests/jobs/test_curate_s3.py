"""The curation job with its inputs and its output in a bucket (moto's S3 server on loopback).

Workers read the sources and publish their shards and clips to the bucket themselves; the driver
writes the tables and the report there. Nothing may land on local disk, and a rerun must skip
what the bucket already holds. (One small source: a run costs tens of seconds on 2 cores.)
"""

import os

import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from g2w.curate.bucketed_table import buckets_of
from g2w.io import storage
from g2w.jobs.curate import run_curate
from g2w.sample_data import VideoSpec, write_sample
from tests.jobs.test_curate import DEMO


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    folder = tmp_path_factory.mktemp("raw-s3")
    write_sample(VideoSpec(3, 0, 320, 180, 24, 5.5, "topdown", False, None), folder)  # one window, kept
    (folder / "broken.mp4").write_text("not a video\n" * 20)
    return folder


def _mtimes(prefix: str) -> dict:
    fs, inner = pafs.FileSystem.from_uri(prefix)
    return {i.path: i.mtime for i in fs.get_file_info(pafs.FileSelector(inner, recursive=True))}


def _verdicts(rows):
    return [(r["clip_id"], r["status"], r["reason"]) for r in rows]


def test_curation_reads_and_writes_a_bucket_and_resumes_there(raw, s3_bucket, tmp_path, monkeypatch, ray_local):
    for name in sorted(os.listdir(raw)):
        if name.endswith(".mp4"):
            storage.write_bytes(f"{s3_bucket}/raw/{name}", (raw / name).read_bytes())
    out = f"{s3_bucket}/run"
    monkeypatch.chdir(tmp_path / ".")  # a URI taken for a local path would show up here
    run_curate([f"{s3_bucket}/raw"], out, DEMO)
    assert os.listdir(tmp_path) == []

    rows = pq.read_table(f"{out}/manifest.parquet").to_pylist()
    kept = sorted(r["clip_id"] for r in rows if r["status"] == "kept")
    assert len(kept) == 1 and len({r["source"] for r in rows}) == 2
    assert [r["reason"] for r in rows if r["source"].endswith("broken.mp4")] == ["not_media"]
    assert storage.list_files(f"{out}/clips") == [f"{out}/clips/{c}.mp4" for c in kept]
    assert all(r["clip_path"] == f"clips/{r['clip_id']}.mp4" for r in rows if r["status"] == "kept")
    assert {p.rsplit("/", 1)[1] for p in storage.list_files(out)} == {"sources.parquet", "summary.json", "report.html"}
    buckets = set(buckets_of(pq.read_table(f"{out}/manifest.parquet").column("source_id")).tolist())
    assert len(storage.list_files(f"{out}/manifest.parquet", ".parquet")) == len(buckets)  # a shard per bucket
    assert f"{out}/report/kept_by_cluster.png" in storage.list_files(f"{out}/report")  # clips streamed back
    assert len(storage.list_files(f"{out}/work/windows", ".parquet")) == 1  # shards compacted in the bucket

    before = _mtimes(f"{out}/clips")
    summary = run_curate([f"{s3_bucket}/raw"], out, DEMO)
    assert summary["throughput"]["sources_analysed"] == 0  # the shards in the bucket were found
    assert _mtimes(f"{out}/clips") == before  # and no clip was encoded or uploaded again
    assert _verdicts(pq.read_table(f"{out}/manifest.parquet").to_pylist()) == _verdicts(rows)
