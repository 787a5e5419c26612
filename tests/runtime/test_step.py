"""The step protocol without Ray: what decides tasks versus actors."""

from dataclasses import dataclass

import numpy as np

from g2w.step import Resources, Step


@dataclass
class Double(Step):
    factor: int = 2

    def __call__(self, batch):
        return {"x": batch["x"] * self.factor}


@dataclass
class Loaded(Step):
    def setup(self):
        self.table = np.arange(10)

    def __call__(self, batch):
        return {"x": self.table[batch["x"]]}


@dataclass
class OnGpu(Step):
    def resources(self):
        return Resources(num_cpus=1, num_gpus=1)

    def __call__(self, batch):
        return batch


def test_a_stateless_cpu_step_runs_as_tasks():
    assert not Double().needs_actor()


def test_setup_or_gpu_means_an_actor_pool():
    assert Loaded().needs_actor()
    assert OnGpu().needs_actor()


def test_steps_are_plain_callables():
    step = Loaded()
    step.setup()
    assert step(Double(3)({"x": np.array([1, 2])}))["x"].tolist() == [3, 6]
    assert step.name == "Loaded"


def test_block_counts_follow_rows_up_to_a_bound():
    from g2w.runtime.pipeline import MAX_BLOCKS, block_count

    assert block_count(0) == 1 and block_count(7) == 7 and block_count(100, rows_per_block=8) == 13
    assert block_count(1_000_000) == MAX_BLOCKS


class _Typed(ValueError):
    def __init__(self, reason: str):
        super().__init__(f"because {reason}")
        self.reason = reason


def test_item_errors_turn_one_items_failure_into_its_row():
    from g2w.step import item_errors, rows_batch

    rows = []
    for work in (
        lambda: None,
        lambda: (_ for _ in ()).throw(_Typed("bad_pair")),
        lambda: open("/nonexistent/x"),
        lambda: 1 / 0,
    ):
        row = {"id": len(rows), "status": "ok", "reason": "", "message": "", "seconds": -1.0}
        try:
            with item_errors(row, "work_failed", {_Typed: "pair_"}, last_chars=20):
                work()
        except ZeroDivisionError:  # not an input error: it is not swallowed
            row["status"] = "raised"
        rows.append(row)
    assert [(r["status"], r["reason"]) for r in rows] == [
        ("ok", ""),
        ("error", "pair_bad_pair"),
        ("error", "work_failed"),
        ("raised", ""),
    ]
    assert rows[1]["message"] == "because bad_pair"
    assert rows[2]["message"].endswith("/nonexistent/x'") and len(rows[2]["message"]) == 20
    assert all(r["seconds"] >= 0 for r in rows)
    batch = rows_batch(rows, ["id", "status"])
    assert batch["id"].tolist() == [0, 1, 2, 3] and batch["status"].tolist()[1] == "error"
