"""The probe job: every input through `ProbeSources` on Ray Data, into `sources.parquet`."""

from __future__ import annotations

import os
import time
from collections import Counter

import pyarrow.parquet as pq

from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.video.sources import SOURCES_SCHEMA, ProbeSources


def run_probe(paths: list[str], out_path: str | os.PathLike, verify: bool = True) -> dict:
    """Probe `paths` in parallel and write one row each to `out_path`; returns a summary."""
    init_ray()
    start = time.perf_counter()
    ds = apply_steps(dataset_from_rows([{"path": os.fspath(p)} for p in paths]), [ProbeSources(verify)])
    rows = write_parquet(ds, out_path, SOURCES_SCHEMA)
    seconds = time.perf_counter() - start
    table = pq.read_table(out_path, columns=["status", "reason", "duration_s"])
    statuses = Counter(table.column("status").to_pylist())
    return {
        "sources": rows,
        "ok": statuses.get("ok", 0),
        "error": statuses.get("error", 0),
        "errors_by_reason": dict(Counter(r for r in table.column("reason").to_pylist() if r)),
        "video_seconds": round(sum(table.column("duration_s").to_pylist()), 3),
        "seconds": round(seconds, 3),
        "sources_per_s": round(rows / seconds, 3) if seconds else None,
    }
