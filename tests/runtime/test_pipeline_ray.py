"""One real local Ray run of a toy chain: a task step, then an actor step with setup()."""

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.step import Resources, Step


@dataclass
class AddOffset(Step):
    offset: int

    def resources(self):
        return Resources(num_cpus=0.5, batch_size=8)

    def __call__(self, batch):
        return {"x": batch["x"] + self.offset}


@dataclass
class Hungry(Step):
    """Declares more memory than any machine has: it must still run, one worker at a time."""

    def resources(self):
        return Resources(num_cpus=0.5, batch_size=8, memory_bytes=1 << 50)

    def __call__(self, batch):
        return {"x": batch["x"]}


@dataclass
class TagWithWorker(Step):
    def setup(self):
        self.pid = os.getpid()
        self.setups = getattr(self, "setups", 0) + 1

    def resources(self):
        return Resources(num_cpus=0.5, batch_size=8, max_workers=2)

    def __call__(self, batch):
        n = len(batch["x"])
        return {"x": batch["x"], "pid": np.full(n, self.pid), "setups": np.full(n, self.setups)}


def test_a_toy_chain_runs_on_local_ray(ray_local, tmp_path):
    ds = dataset_from_rows([{"x": i} for i in range(50)], rows_per_block=5)
    ds = apply_steps(ds, [Hungry()])
    ds = apply_steps(ds, [AddOffset(100), TagWithWorker()])
    out = tmp_path / "rows.parquet"
    schema = pa.schema([("x", pa.int64()), ("pid", pa.int64()), ("setups", pa.int64())])
    assert write_parquet(ds, out, schema) == 50
    table = pq.read_table(out)
    assert sorted(table.column("x").to_pylist()) == list(range(100, 150))
    assert set(table.column("setups").to_pylist()) == {1}, "setup runs once per actor, not per batch"
    assert os.getpid() not in set(table.column("pid").to_pylist()), "work ran in Ray workers"
    assert not (tmp_path / "rows.parquet.partial").exists()


@dataclass
class Oversized(Step):
    """Asks for more CPUs than the cluster has: its tasks can never be scheduled."""

    def resources(self):
        return Resources(num_cpus=64, batch_size=8)

    def __call__(self, batch):
        return {"x": batch["x"]}


def test_a_stage_that_can_never_run_fails_the_write_naming_it(ray_local, tmp_path, monkeypatch):
    import time

    import pytest

    from g2w.runtime.watchdog import StageStalled

    monkeypatch.setenv("G2W_STAGE_STALL_S", "3")
    ds = apply_steps(dataset_from_rows([{"x": i} for i in range(8)]), [AddOffset(1), Oversized()])
    out = tmp_path / "rows.parquet"
    start = time.monotonic()
    with pytest.raises(StageStalled) as caught:
        write_parquet(ds, out, pa.schema([("x", pa.int64())]))
    assert time.monotonic() - start < 30
    assert caught.value.stage == "Oversized" and "made no progress for 3 s" in str(caught.value)
    assert not out.exists(), "a stalled write leaves no file under the final name"
