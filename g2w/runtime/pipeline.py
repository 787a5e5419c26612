"""Chaining steps over a Ray Data dataset, and streaming the result into one Parquet file.

Stateless CPU steps run as Ray tasks. Steps with `setup()` or GPUs run in an autoscaling actor
pool, so models load once per worker rather than once per batch.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import ray
from ray.data import ActorPoolStrategy, Dataset, ExecutionResources

from g2w.io import storage
from g2w.runtime.budget import Budget
from g2w.runtime.capacity import cluster_capacity
from g2w.runtime.pools import pool_selector
from g2w.runtime.watchdog import stalls_named, watch, watch_if_set
from g2w.step import Batch, Resources, Step


def _actor_class(step: Step) -> type:
    """An actor class named after the step that carries it by value and sets it up once.

    The step rides inside the class rather than as a constructor argument, so restarted actors
    never depend on an object-store copy of their arguments.
    """

    def __init__(self):
        self.step = step
        step.setup()

    def __call__(self, batch: Batch) -> Batch:
        return self.step(batch)

    return type(step.name, (), {"__init__": __init__, "__call__": __call__})


def _pool_size(res: Resources, share: Budget | None = None) -> int:
    """Most actors the cluster can hold at once for a step with these needs: what it can grow
    to (G2W_MAX_GPUS and G2W_MAX_CPUS, which the cluster configs set), not only what is up now;
    with a job's `share` of a budget (`g2w.runtime.budget`), what that share holds."""
    if share is not None:
        fits = []
        if res.num_gpus > 0 and share.gpus > 0:
            fits.append(share.gpus / res.num_gpus)
        if res.num_cpus > 0:
            fits.append(share.cpus / res.num_cpus)
        most = max(1, math.floor(min(fits) + 1e-9) if fits else 1)
        return min(most, res.max_workers) if res.max_workers is not None else most
    if res.max_workers is not None:
        return res.max_workers
    cluster = cluster_capacity()
    limits = []
    if res.num_gpus > 0:
        limits.append(cluster.get("GPU", 0) / res.num_gpus)
    if res.num_cpus > 0:
        limits.append(cluster.get("CPU", 1) / res.num_cpus)
    return max(1, math.floor(min(limits)) if limits else 1)


def _memory_request(memory_bytes: int) -> int:
    """A worker's declared memory, but never more than the largest node offers: a small machine
    then runs one such worker at a time instead of none."""
    largest = max((n["Resources"].get("memory", 0) for n in ray.nodes() if n.get("Alive")), default=0)
    return int(min(memory_bytes, largest)) if largest else memory_bytes


def _as_task(step: Step):
    """A plain function wrapper so Ray Data names the operator after the step."""

    def run(batch: Batch) -> Batch:
        return step(batch)

    run.__name__ = run.__qualname__ = step.name
    return run


MAX_BLOCKS = 10_000  # a million sources as a million blocks would swamp the driver and object store


def block_count(rows: int, rows_per_block: int = 1) -> int:
    """Blocks for a dataset of small rows: fine enough to spread work, never more than MAX_BLOCKS."""
    return max(1, min(rows, math.ceil(rows / rows_per_block), MAX_BLOCKS))


def dataset_from_rows(rows: Sequence[dict], rows_per_block: int = 1) -> Dataset:
    """A dataset over small rows (paths, ids), split finely so work spreads across workers."""
    blocks = block_count(len(rows), rows_per_block)
    return ray.data.from_items(list(rows), override_num_blocks=blocks)


def dataset_from_table(table: pa.Table, rows_per_block: int = 1) -> Dataset:
    """`dataset_from_rows` for rows already in an Arrow table: the table is sliced into blocks
    as it is, so a driver holding a million small rows never turns them into Python objects."""
    blocks = block_count(table.num_rows, rows_per_block)
    size = math.ceil(table.num_rows / blocks) if table.num_rows else 1
    return ray.data.from_arrow([table.slice(i, size) for i in range(0, max(table.num_rows, 1), size)])


def budgeted(res: Resources, share: Budget) -> Resources:
    """A step's needs within its share of a job's budget: a worker asks for at most the share's
    CPUs, so a node whose other CPUs are held still runs it (more slowly) instead of never."""
    return replace(res, num_cpus=min(res.num_cpus, share.cpus)) if res.num_cpus > 0 else res


def apply_steps(ds: Dataset, steps: Sequence[Step], budget: Budget | None = None) -> Dataset:
    """Append each step to the dataset's plan as one map_batches operator.

    With a `budget`, the steps share it evenly (each worker asks for at most its share, each pool
    holds what its share holds) and Ray Data's resource limits for this dataset are the budget, so
    the job plans for what others' reservations leave it rather than for the cluster's totals.
    """
    share = budget.share(len(steps)) if budget is not None else None
    for step in steps:
        res = step.resources() if share is None else budgeted(step.resources(), share)
        kwargs: dict[str, Any] = dict(batch_format="numpy", batch_size=res.batch_size, num_cpus=res.num_cpus)
        if res.num_gpus > 0:
            kwargs["num_gpus"] = res.num_gpus
        kwargs.update(pool_selector(res.num_gpus))  # decode on CPU nodes, GPU work on GPU nodes
        if res.memory_bytes > 0:
            kwargs["memory"] = _memory_request(res.memory_bytes)
        if step.needs_actor():
            ds = ds.map_batches(
                _actor_class(step),
                compute=ActorPoolStrategy(min_size=1, max_size=_pool_size(res, share)),
                **kwargs,
            )
        else:
            ds = ds.map_batches(_as_task(step), **kwargs)
    if budget is not None:
        ds.context.execution_options.resource_limits = ExecutionResources(
            cpu=budget.cpus, gpu=budget.gpus if budget.gpus > 0 else None
        )
    return ds


def batches(
    ds: Dataset,
    batch_size: int,
    stall_s: float | None = None,
    requests: Mapping[str, Mapping[str, float]] | None = None,
) -> Iterator[Batch]:
    """The dataset's rows, `batch_size` at a time as numpy columns, with its stages supervised.

    Every job that runs a dataset iterates it here, so none of them can hang silently: once no
    stage moved for the stall time (`stall_s`, else G2W_STAGE_STALL_S, else Ray Data's own
    timeout), the loop fails with `StageStalled` naming the stage that holds the work, one of
    `requests`' stages (`stage_requests`) when given (`g2w.runtime.watchdog`).
    """
    ds = watch(ds, stall_s) if stall_s is not None else watch_if_set(ds)
    with stalls_named(ds, requests):
        yield from ds.iter_batches(batch_format="numpy", batch_size=batch_size)


def write_parquet(ds: Dataset, path: str | os.PathLike, schema: pa.Schema) -> int:
    """Stream the dataset's rows into a single Parquet file at `path`; returns the row count.

    Rows arrive batch by batch (`batches`, so a stuck stage fails the write naming it), and the
    driver never holds the whole result. The file appears under its final name only once
    complete (`path` may be a bucket URI).
    """
    rows = 0
    with storage.staged_file(os.fspath(path)) as tmp, pq.ParquetWriter(tmp, schema) as writer:
        for batch in batches(ds, 256):
            table = pa.Table.from_pydict({k: list(batch[k]) for k in schema.names}, schema=schema)
            writer.write_table(table)
            rows += table.num_rows
    return rows


def stage_requests(steps: Sequence[Step], budget: Budget | None = None) -> dict[str, dict[str, float]]:
    """What one worker of each step asks for, as `apply_steps` requests it (by step name)."""
    share = budget.share(len(steps)) if budget is not None else None
    out = {}
    for step in steps:
        res = step.resources() if share is None else budgeted(step.resources(), share)
        out[step.name] = {"CPU": float(res.num_cpus), "GPU": float(res.num_gpus)}
    return out
