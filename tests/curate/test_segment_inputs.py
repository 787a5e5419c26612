"""Segment planning bucket by bucket, from the decisions and the work shards on disk, gives the
segments of the whole table planned at once; a window without its embedding is an error."""

import numpy as np
import pyarrow as pa
import pytest

from g2w.curate.bucketed_table import write_sharded
from g2w.curate.segment_inputs import bucket_inputs
from g2w.curate.segments import READ_COLUMNS, SegmentConfig, plan_segments
from g2w.curate.work_shards import embedding_column
from tests.curate.test_segments_golden import fixed_windows

CFG = SegmentConfig(min_s=8, max_s=30)


def _write(tmp_path, windows: pa.Table, embeddings: np.ndarray, drop_shard_rows: int = 0):
    decisions, shards = str(tmp_path / "windows.parquet"), str(tmp_path / "shards")
    write_sharded(windows.append_column("luma_mean", pa.array(np.zeros(windows.num_rows))), decisions)
    embedded = windows.select(["clip_id", "source_id", "source", "window_index"]).append_column(
        "embedding", embedding_column(embeddings, np.ones(len(embeddings), bool))
    )
    write_sharded(embedded.slice(drop_shard_rows), shards, prefix="merged-", sort_keys=("clip_id",))
    return decisions, shards


def test_bucket_by_bucket_equals_the_whole_table(tmp_path):
    windows, embeddings = fixed_windows()
    decisions, shards = _write(tmp_path, windows, embeddings)
    inputs = list(bucket_inputs(decisions, shards, READ_COLUMNS))
    assert len(inputs) > 1 and all(t.column_names == list(READ_COLUMNS) for t, _ in inputs)
    parts = pa.concat_tables([plan_segments(t, e, CFG, "appearance") for t, e in inputs])
    whole = plan_segments(windows, embeddings, CFG, "appearance")
    assert parts.sort_by([("source_id", "ascending"), ("start_s", "ascending")]).equals(whole)


def test_a_window_without_embedding_is_an_error(tmp_path):
    windows, embeddings = fixed_windows()
    decisions, shards = _write(tmp_path, windows, embeddings, drop_shard_rows=1)
    with pytest.raises(ValueError, match="no embedding for 1 of the windows"):
        list(bucket_inputs(decisions, shards, READ_COLUMNS))
