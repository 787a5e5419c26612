"""The curation driver's bookkeeping, kept as Arrow tables: sources, analysis work, and the
records of sources that gave no window.

A run over a million sources would hold a million Python dicts (a few GB and minutes of
interpreter time) if each source, segment or window became a row object on the driver. Here the
sources table stays as Arrow, the work still to do is computed by vectorized arithmetic and one
Arrow group-by over the finished windows, and the per-source error records are built column by
column. Nothing in this file turns a table into Python rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from g2w.curate.rows import MANIFEST_SCHEMA, MEASURES
from g2w.curate.windows import window_counts


def expected_windows(sources: pa.Table, window_s: float) -> pa.Table:
    """The readable sources (status ok) with an `expected` column: their complete windows, 0 for
    one shorter than a window."""
    ok = sources.filter(pc.equal(sources.column("status"), "ok"))
    durations = ok.column("duration_s").to_numpy(zero_copy_only=False)
    return ok.append_column("expected", pa.array(window_counts(durations, window_s), pa.int64()))


def pending_segments(expected: pa.Table, done: pa.Table, per_segment: int) -> pa.Table:
    """Analysis work still to do: one row per segment (the source's columns plus `first_window`
    and `end_window`) whose windows are not all in `done` (the work shards' `source_id` and
    `window_index`), in source order then segment order."""
    per = max(1, int(per_segment))
    counts = expected.column("expected").to_numpy(zero_copy_only=False).astype(np.int64)
    per_source = -(-counts // per)  # segments per source
    owner = np.repeat(np.arange(len(counts)), per_source)
    starts = np.cumsum(per_source) - per_source
    seg = np.arange(int(per_source.sum()), dtype=np.int64) - np.repeat(starts, per_source)
    first = seg * per
    end = np.minimum(first + per, counts[owner])
    wanted = pa.table(
        {
            "source_id": pc.cast(expected.column("source_id"), pa.string()).take(pa.array(owner)),
            "seg": pa.array(seg),
            "need": pa.array(end - first),
            "order": pa.array(np.arange(len(seg), dtype=np.int64)),
        }
    )
    done_seg = np.asarray(done.column("window_index").to_numpy(zero_copy_only=False), np.int64) // per
    have = (
        pa.table({"source_id": pc.cast(done.column("source_id"), pa.string()), "seg": pa.array(done_seg)})
        .group_by(["source_id", "seg"])
        .aggregate([([], "count_all")])
    )
    joined = wanted.join(have, ["source_id", "seg"], join_type="left outer")
    missing = pc.less(pc.fill_null(joined.column("count_all"), 0), joined.column("need"))
    rows = joined.filter(missing).sort_by("order").column("order").to_numpy().astype(np.int64)
    out = expected.drop_columns(["expected"]).take(pa.array(owner[rows]))
    out = out.append_column("first_window", pa.array(first[rows], pa.int64()))
    return out.append_column("end_window", pa.array(end[rows], pa.int64()))


def source_counts(sources: pa.Table) -> dict:
    """{"total", one count per status, "errors_by_reason"} for the summary."""
    status = sources.column("status")
    failed = sources.filter(pc.not_equal(status, "ok")).column("reason")
    return {"total": sources.num_rows, **value_counts(status), "errors_by_reason": value_counts(failed)}


def value_counts(values: pa.Array | pa.ChunkedArray) -> dict[str, int]:
    """{value: count} of a column, nulls left out; only the distinct values become Python."""
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    counts = pc.value_counts(array)
    keys, numbers = counts.field("values").to_pylist(), counts.field("counts").to_pylist()
    return {str(k): int(c) for k, c in zip(keys, numbers) if k is not None}


def source_error_table(sources: pa.Table) -> pa.Table:
    """Manifest rows (MANIFEST_SCHEMA) for sources that yielded no windows at all: an error row
    for an unreadable source, a rejected `too_short` one for a readable one shorter than a window.
    Column for column what `rows.source_error_row` gives one source."""
    n = sources.num_rows
    sid = pc.cast(sources.column("source_id"), pa.string())
    path = pc.cast(sources.column("path"), pa.string())
    ok = pc.equal(sources.column("status"), "ok")
    reason, error = (pc.fill_null(sources.column(c), "") for c in ("reason", "error"))
    zeros = pa.array(np.zeros(n))
    columns = {
        "clip_id": pc.binary_join_element_wise(sid, pa.scalar("-0001"), "-"),
        "source_id": sid,
        "source": path,
        "window_index": pa.array(np.full(n, -1, np.int32)),
        "start_s": zeros,
        "end_s": zeros,
        "status": pc.if_else(ok, "rejected", "error"),
        "reason": pc.if_else(pc.equal(reason, ""), "too_short", reason),
        "error": pc.if_else(
            pc.equal(error, ""), pc.binary_join_element_wise(path, pa.scalar(": shorter than one window"), ""), error
        ),
        **{c: sources.column(c) for c in ("width", "height", "fps", "rotation")},
        **{m: zeros for m in MEASURES},
        "samples": pa.array(np.zeros(n, np.int32)),
        "cut_count": pa.array(np.zeros(n, np.int32)),
        "cut_times": pa.ListArray.from_arrays(pa.array(np.zeros(n + 1, np.int32)), pa.array([], pa.float64())),
        "cut_detector": pa.array(np.full(n, ""), pa.string()),
    }
    arrays = [pc.cast(columns[f.name], f.type) if f.name in columns else pa.nulls(n, f.type) for f in MANIFEST_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=MANIFEST_SCHEMA)
