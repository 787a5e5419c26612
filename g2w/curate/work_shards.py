"""Work shards: analysed and embedded window rows on disk, which is what makes reruns cheap.

Each batch that leaves the embedding stage is written to `work/windows/` as one Parquet file
named by the hash of its clip ids, by the worker that made it, and published only once complete
(renamed on a disk, uploaded as one object to a bucket), so a killed job leaves only complete
shards. A source counts as done when every one of its windows is in some shard; a
rerun analyses only the others. Merging keeps one row per clip id and compacts the shards into
per-source-bucket files (`g2w.curate.bucketed_table`), rewriting only buckets that changed, so
repeated partial runs never pile up duplicates nor rewrite the whole cache.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.curate.bucketed_table import write_sharded
from g2w.curate.rows import WINDOW_SCHEMA
from g2w.io import storage
from g2w.step import Batch, Resources, Step


def embedding_column(matrix: np.ndarray, present: np.ndarray) -> pa.ListArray:
    """(n, d) float16 rows -> a list<float16> column, null where `present` is False."""
    matrix = np.asarray(matrix, np.float16).reshape(len(present), -1)
    offsets = pa.array(np.arange(len(matrix) + 1, dtype=np.int32) * matrix.shape[1])
    return pa.ListArray.from_arrays(
        offsets, pa.array(matrix.reshape(-1), pa.float16()), mask=pa.array(~np.asarray(present, bool))
    )


def batch_to_table(batch: Batch) -> pa.Table:
    """A numpy batch from the embedding stage -> a table in WINDOW_SCHEMA (embedding null where
    there is none)."""
    columns = {}
    for field in WINDOW_SCHEMA:
        if field.name == "embedding":
            columns[field.name] = embedding_column(batch["embedding"], batch["has_embedding"])
        elif field.name == "cut_times":
            columns[field.name] = pa.array([list(v) for v in batch[field.name]], field.type)
        else:
            columns[field.name] = pa.array(np.asarray(batch[field.name]).tolist(), field.type)
    return pa.table(columns, schema=WINDOW_SCHEMA)


@dataclass
class WriteShards(Step):
    shard_dir: str

    def resources(self) -> Resources:
        return Resources(num_cpus=0.5, batch_size=256)

    def __call__(self, batch: Batch) -> Batch:
        table = batch_to_table(batch)
        ids = sorted(table.column("clip_id").to_pylist())
        name = hashlib.sha1("\n".join(ids).encode()).hexdigest()[:20]
        with storage.staged_file(storage.join(self.shard_dir, f"part-{name}.parquet")) as tmp:
            pq.write_table(table, tmp)
        return {"source_id": np.asarray(batch["source_id"]), "status": np.asarray(batch["status"])}


def shard_paths(shard_dir: str) -> list[str]:
    return storage.list_files(shard_dir, ".parquet")


def read_shards(shard_dir: str, columns: list[str] | None = None) -> pa.Table:
    """All shard rows, one per clip id (the first in file-name order), sorted by clip id;
    `columns` (which must include clip_id) reads only those."""
    paths = shard_paths(shard_dir)
    schema = WINDOW_SCHEMA if columns is None else pa.schema([WINDOW_SCHEMA.field(c) for c in columns])
    if not paths:
        return schema.empty_table()
    table = pa.concat_tables([pq.read_table(p, schema=WINDOW_SCHEMA, columns=columns) for p in paths])
    ids = table.column("clip_id").to_numpy(zero_copy_only=False)
    _, first = np.unique(ids, return_index=True)  # np.unique sorts, so rows come out by clip id
    del ids
    table = table.take(pa.array(first))
    pa.default_memory_pool().release_unused()  # the shards' buffers, freed, go back to the OS
    return table


def compact(shard_dir: str, table: pa.Table) -> dict:
    """Replace the shards by `table` in per-source-bucket `merged-xx.parquet` files; a bucket
    whose rows did not change keeps its file, so a rerun that adds sources rewrites only the
    buckets they fall in. Small per-batch parts are removed once merged."""
    return write_sharded(table, shard_dir, prefix="merged-")
