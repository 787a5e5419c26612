"""Window tables kept as a folder of Parquet shards keyed by source, so a rerun rewrites only the
shards whose rows changed.

Every source falls into one of `BUCKETS` buckets by a hash of its `source_id`, fixed forever, so
the same source always lands in the same shard, whatever else the run holds. Each shard is one
Parquet file, `<prefix><bucket as two hex digits>.parquet`, holding its rows sorted by
(source, window index), with a digest of its content in the file's key-value metadata. Writing a
table compares each bucket's digest with the footer of the shard already there (a footer read,
not a file read) and publishes only the shards that differ or are missing; shards of buckets
that are now empty are removed. A rerun on the same inputs therefore writes nothing, and one
that adds a source rewrites the shards its windows fall in (plus those whose verdicts moved,
since selection is global).

The folder is an ordinary Parquet dataset: `pyarrow.parquet.read_table(folder)` reads it,
locally or from a bucket, in shard order. The curation manifest is such a folder named
`manifest.parquet/`, so `pq.read_table(OUT/manifest.parquet)` reads it as it read the single
file it replaces. At 1M windows the 256 shards hold about 4,000 rows (4-5 MB) each.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io import storage

BUCKETS = 256
_DIGEST_KEY = b"g2w.digest"
_ROW_GROUP = 65_536


def buckets_of(source_ids: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The shard bucket (0..BUCKETS-1) of every row, from a hash of its source id."""
    ids = pa.chunked_array(source_ids) if isinstance(source_ids, pa.Array) else source_ids
    values = ids.to_numpy(zero_copy_only=False).astype(str)
    unique, inverse = np.unique(values, return_inverse=True)
    per_source = np.array([int(hashlib.sha1(s.encode()).hexdigest()[:8], 16) % BUCKETS for s in unique], np.int64)
    return per_source[inverse].reshape(-1) if len(values) else np.zeros(0, np.int64)


def shard_name(prefix: str, bucket: int) -> str:
    return f"{prefix}{bucket:02x}.parquet"


def digest(table: pa.Table) -> str:
    """A hash of a table's schema and values (its Arrow IPC stream, chunks combined)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table.combine_chunks())
    return hashlib.sha1(sink.getvalue()).hexdigest()


def _stored_digest(path: str) -> str | None:
    """The digest recorded in a shard's footer, or None for a file without one (or unreadable)."""
    try:
        with storage.open_binary(path) as f:
            meta = pq.read_schema(f).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return None
    value = meta.get(_DIGEST_KEY)
    return value.decode() if value else None


def write_sharded(
    table: pa.Table, folder: str, prefix: str = "part-", sort_keys: tuple[str, ...] = ("source", "window_index")
) -> dict:
    """Write `table` (with a `source_id` column) into `folder` as per-bucket shards, publishing
    only those that changed. Other `.parquet` files in the folder (stale buckets, small work
    parts) are removed after the new shards are in place. Returns {"written", "unchanged",
    "removed"} counts. A single file where the folder should be (an older run's manifest) is
    replaced."""
    if storage.exists(folder):  # the pre-sharding single-file manifest
        storage.remove(folder)
    storage.makedirs(folder)
    buckets = buckets_of(table.column("source_id"))
    order = np.argsort(buckets, kind="stable")
    present, starts = np.unique(buckets[order], return_index=True)
    keep, written, unchanged = set(), 0, 0
    for bucket, rows in zip(present, np.split(order, starts[1:])):
        shard = table.take(pa.array(rows)).sort_by([(k, "ascending") for k in sort_keys])
        if _publish(shard, storage.join(folder, shard_name(prefix, int(bucket)))):
            written += 1
        else:
            unchanged += 1
        keep.add(storage.join(folder, shard_name(prefix, int(bucket))))
    if not len(present):  # no rows at all: one empty shard keeps the schema readable
        keep.add(storage.join(folder, shard_name(prefix, 0)))
        written += _publish(table, storage.join(folder, shard_name(prefix, 0)))
    removed = 0
    for path in storage.list_files(folder, ".parquet"):
        if path not in keep:
            storage.remove(path)
            removed += 1
    return {"written": written, "unchanged": unchanged, "removed": removed}


def _publish(shard: pa.Table, path: str) -> bool:
    """Write one shard unless the file there already holds the same rows; True if written."""
    value = digest(shard)
    if _stored_digest(path) == value:
        return False
    shard = shard.replace_schema_metadata({**(shard.schema.metadata or {}), _DIGEST_KEY: value.encode()})
    with storage.staged_file(path) as tmp:
        pq.write_table(shard, tmp, row_group_size=_ROW_GROUP)
    return True


def read_sharded(folder: str, columns: list[str] | None = None) -> pa.Table:
    """Every shard of a folder (or a single file) as one table, in shard order."""
    if storage.exists(folder):
        with storage.open_binary(folder) as f:
            return pq.read_table(f, columns=columns)
    paths = storage.list_files(folder, ".parquet")
    if not paths:
        raise FileNotFoundError(f"{folder}: no Parquet shards")
    tables = []
    for p in paths:
        with storage.open_binary(p) as f:
            tables.append(pq.read_table(f, columns=columns))
    return pa.concat_tables(tables)
