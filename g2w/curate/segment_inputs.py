"""The inputs of segment planning, read back one source bucket at a time.

The long-mode job writes its window decisions (`windows.parquet/`, no embeddings) and has its
embeddings in the compacted work shards (`work/windows/`); both are per-source-bucket folders
(`g2w.curate.bucketed_table`) whose shard of one bucket holds the same sources. Reading a
bucket's decisions (only the columns segmenting needs) beside that bucket's embeddings keeps
one bucket of windows on the driver at a time, never the whole window table with its
embedding matrix, and segments need nothing across sources.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from g2w.curate.bucketed_table import shard_name
from g2w.curate.select import embedding_matrix
from g2w.io import storage

DECISIONS_PREFIX = "part-"  # write_sharded's default, as the window decisions are written
SHARDS_PREFIX = "merged-"  # the compacted work shards'


def _read(path: str, columns: Sequence[str]) -> pa.Table:
    with storage.open_binary(path) as f:
        return pq.read_table(f, columns=list(columns))


def bucket_inputs(decisions_dir: str, shard_dir: str, columns: Sequence[str]) -> Iterator[tuple[pa.Table, np.ndarray]]:
    """(decisions with `columns`, their (n, d) embeddings row for row) of every bucket."""
    for path in storage.list_files(decisions_dir, ".parquet"):
        name = path.rsplit("/", 1)[-1]
        bucket = int(name[len(DECISIONS_PREFIX) : -len(".parquet")], 16)
        decisions = _read(path, columns)
        shard = storage.join(shard_dir, shard_name(SHARDS_PREFIX, bucket))
        embedded = _read(shard, ["clip_id", "embedding"])
        at = pc.index_in(decisions.column("clip_id"), value_set=embedded.column("clip_id").combine_chunks())
        if at.null_count:
            raise ValueError(f"{shard}: no embedding for {at.null_count} of the windows in {path}")
        matrix, _ = embedding_matrix(embedded.select(["embedding"]).take(at))
        yield decisions, matrix
