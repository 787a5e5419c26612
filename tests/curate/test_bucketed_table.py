"""The sharded window tables: one file per source bucket, rewritten only when its rows change."""

import os

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.curate.bucketed_table import BUCKETS, buckets_of, write_sharded


def _table(sources: dict[str, int], status: str = "ok") -> pa.Table:
    rows = [
        {"source_id": s, "source": f"/raw/{s}.mp4", "window_index": w, "status": status}
        for s, n in sources.items()
        for w in range(n)
    ]
    return pa.Table.from_pylist(rows)


def _files(folder) -> dict[str, float]:
    return {n: os.stat(os.path.join(folder, n)).st_mtime_ns for n in sorted(os.listdir(folder))}


def test_buckets_are_stable_and_spread():
    ids = pa.array([f"src{i}" for i in range(2000)])
    a, b = buckets_of(ids), buckets_of(ids.take(pa.array(list(range(1999, -1, -1)))))
    assert (a == b[::-1]).all()  # a source's bucket does not depend on the others
    assert 0 <= a.min() and a.max() < BUCKETS and len(set(a.tolist())) > BUCKETS // 2


def test_a_rerun_rewrites_only_changed_shards_and_reads_back_whole(tmp_path):
    folder = str(tmp_path / "manifest.parquet")
    sources = {f"s{i}": 3 for i in range(40)}
    first = _table(sources)
    report = write_sharded(first, folder)
    files = _files(folder)
    assert report["written"] == len(files) == len(set(buckets_of(first.column("source_id")).tolist())) > 1
    back = pq.read_table(folder)  # the folder reads as one dataset, like the single file did
    key = lambda t: sorted(
        zip(t.column("source_id").to_pylist(), t.column("window_index").to_pylist(), t.column("status").to_pylist())
    )
    assert key(back) == key(first)

    assert write_sharded(first, folder) == {"written": 0, "unchanged": len(files), "removed": 0}
    assert _files(folder) == files  # nothing touched

    changed = pa.concat_tables([_table({s: 3 for s in sources if s != "s7"}), _table({"s7": 3}, "rejected")])
    report = write_sharded(changed, folder)
    bucket = f"part-{int(buckets_of(pa.array(['s7']))[0]):02x}.parquet"
    assert report["written"] == 1 and report["removed"] == 0
    after = _files(folder)
    assert {n for n in files if after[n] != files[n]} == {bucket}
    assert key(pq.read_table(folder)) == key(changed)

    fewer = _table({s: 3 for s in sources if buckets_of(pa.array([s]))[0] != int(bucket[5:7], 16)})
    report = write_sharded(fewer, folder)
    assert report["removed"] == 1 and bucket not in os.listdir(folder)
    assert key(pq.read_table(folder)) == key(fewer)


def test_an_older_single_file_manifest_is_replaced(tmp_path):
    path = tmp_path / "manifest.parquet"
    pq.write_table(_table({"old": 2}), path)
    write_sharded(_table({"new": 2}), str(path))
    assert path.is_dir() and pq.read_table(path).column("source_id").to_pylist() == ["new", "new"]


def test_an_empty_table_leaves_a_readable_empty_dataset(tmp_path):
    folder = tmp_path / "m"
    write_sharded(_table({"a": 2}).slice(0, 0), str(folder))
    table = pq.read_table(folder)
    assert table.num_rows == 0 and "source_id" in table.column_names
