"""The curation driver keeps its per-source and per-window bookkeeping in Arrow, not as Python
rows: measured with tracemalloc, which sees every Python object and numpy array but not Arrow's
own buffers, over a corpus large enough that Python rows would show."""

import os
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from g2w.curate.driver_tables import expected_windows, pending_segments, source_counts, source_error_table
from g2w.curate.rows import MANIFEST_SCHEMA, source_error_row
from g2w.jobs import curate
from g2w.video.sources import SOURCES_SCHEMA

SOURCES = 50_000  # 100,000 windows: as Python dicts, well over 100 MB


def _sources(n: int, short_every: int = 10, bad_every: int = 7) -> pa.Table:
    idx = np.arange(n)
    bad = idx % bad_every == 0
    cols = {
        "source_id": pa.array(np.char.add("s", idx.astype(str))),
        "path": pa.array(np.char.add(np.char.add("/in/s", idx.astype(str)), ".mp4")),
        "size_bytes": pa.array(np.full(n, 1 << 20)),
        "status": pa.array(np.where(bad, "error", "ok")),
        "reason": pa.array(np.where(bad, "unreadable", "")),
        "error": pa.array(np.where(bad, "moov atom not found", "")),
        "has_video": pa.array(~bad),
        "width": pa.array(np.full(n, 1280, np.int32)),
        "height": pa.array(np.full(n, 720, np.int32)),
        "fps": pa.array(np.full(n, 30.0)),
        "frame_count": pa.array(np.full(n, 300)),
        "duration_s": pa.array(np.where(idx % short_every == 0, 3.0, 10.0)),
        "codec": pa.array(np.full(n, "h264")),
        "rotation": pa.array(np.zeros(n, np.int32)),
    }
    return pa.table({f.name: cols[f.name].cast(f.type) for f in SOURCES_SCHEMA}, schema=SOURCES_SCHEMA)


def _python_peak_mb(fn):
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def test_bookkeeping_over_100k_windows_allocates_no_python_rows():
    sources = _sources(SOURCES)
    _, rows_mb = _python_peak_mb(sources.to_pylist)  # what holding the sources as rows costs
    assert rows_mb > 40
    expected, mb = _python_peak_mb(lambda: expected_windows(sources, 5.0))
    assert mb < 8 and int(pc.sum(expected.column("expected")).as_py()) > 70_000
    full = expected.filter(pc.equal(expected.column("expected"), 2))  # 10 s sources: two windows each
    done_ids = pc.cast(full.column("source_id"), pa.string()).take(pa.array(np.repeat(np.arange(full.num_rows), 2)))
    done = pa.table({"source_id": done_ids, "window_index": pa.array(np.tile([0, 1], full.num_rows), pa.int32())})
    done = done.filter(pa.array(np.arange(done.num_rows) % 3 != 0))  # a third of the windows still to do
    pending, mb = _python_peak_mb(lambda: pending_segments(expected, done, 1))
    assert mb < 16 and pending.num_rows == int(pc.sum(expected.column("expected")).as_py()) - done.num_rows
    failed, mb = _python_peak_mb(
        lambda: source_error_table(sources.filter(pc.not_equal(sources.column("status"), "ok")))
    )
    assert mb < 8 and failed.num_rows > 5000 and failed.schema == MANIFEST_SCHEMA
    counts, mb = _python_peak_mb(lambda: source_counts(sources))
    assert mb < 4 and counts["total"] == SOURCES and counts["errors_by_reason"] == {"unreadable": counts["error"]}


def test_source_error_rows_equal_the_row_builder():
    sources = _sources(30, short_every=4, bad_every=3)
    n_ok = expected_windows(sources, 5.0)
    short = pc.is_in(sources.column("source_id"), n_ok.filter(pc.equal(n_ok.column("expected"), 0)).column("source_id"))
    subset = sources.filter(pc.or_(pc.not_equal(sources.column("status"), "ok"), short))
    want = pa.Table.from_pylist([source_error_row(s) for s in subset.to_pylist()], schema=MANIFEST_SCHEMA)
    assert source_error_table(subset).to_pylist() == want.to_pylist()
    assert {"error", "rejected"} == set(want.column("status").to_pylist())


def test_standardization_results_merge_in_arrow():
    manifest = pa.table(
        {
            "clip_id": ["a", "b", "c", "d"],
            "status": ["kept", "kept", "rejected", "kept"],
            "reason": ["", "", "near_duplicate", ""],
            "error": ["", "", "", ""],
            "clip_path": pa.nulls(4, pa.string()),
        }
    )
    results = pa.table(
        {
            "clip_id": ["b", "a"],
            "clip_path": ["s3://bucket/run/clips/b.mp4", ""],
            "std_status": ["ok", "error"],
            "std_error": ["", "encoder died"],
        }
    )
    out = curate.merge_standardized(manifest, results).to_pydict()
    assert out["status"] == ["error", "kept", "rejected", "error"]
    assert out["reason"] == ["standardize_failed", "", "near_duplicate", "standardize_failed"]
    assert out["error"] == ["encoder died", "", "", "standardization did not run"]
    assert out["clip_path"] == [None, "clips/b.mp4", None, None]


def test_the_embedding_matrix_reaches_kmeans_through_the_object_store(monkeypatch):
    seen = {}
    monkeypatch.setattr(curate, "put", lambda x: seen.setdefault("put", ("ref", x.shape)))
    monkeypatch.setattr(curate, "largest_node_cpus", lambda: 4)
    monkeypatch.setattr(curate, "call_remote", lambda fn, *args, **kw: seen.setdefault("args", args) and np.zeros(3))
    labels = curate._kmeans_task(curate.CurateConfig(), "cpu")(np.zeros((3, 8), np.float16))
    assert seen["put"] == ("ref", (3, 8)) and seen["args"] == (("ref", (3, 8)),) and len(labels) == 3


def test_stale_clips_go_in_one_batch(tmp_path, monkeypatch):
    for name in ("a.mp4", "b.mp4", "c.mp4", ".partial-d.mp4"):
        (tmp_path / name).write_bytes(b"x")
    batches = []
    real = curate.storage.remove_many
    monkeypatch.setattr(curate.storage, "remove_many", lambda paths: batches.append(list(paths)) or real(paths))
    curate._remove_stale_clips(str(tmp_path), pa.chunked_array([["b"], ["zz"]]))
    assert sorted(os.listdir(tmp_path)) == ["b.mp4"]
    assert batches == [[str(tmp_path / "a.mp4"), str(tmp_path / "c.mp4")]]
