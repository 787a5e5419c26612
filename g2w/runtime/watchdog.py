"""A stuck stage becomes an error that names it, never a silent hang.

A job that iterates a Ray Data dataset waits inside the iterator for as long as no stage can
run: on a node whose CPUs the service's replicas hold, that is forever, with nothing in the log.
Ray Data's executor already watches every operator's queues and outputs between scheduling
steps and raises `ExecutionTimeoutError` when none moved for `execution_no_progress_timeout_s`
(shutting its tasks down first); its default is long, and its message names Ray's operators,
not the job's stages. `watch` sets that stall time on the dataset (`stall_s`, generous by
default: one batch of a slow stage on a long video must not trip it), and `stalls_named` turns
the timeout into `StageStalled`: the job's stage that holds the work (the furthest downstream
one that has been given input) and what it waits for, its workers' request against what the
cluster has free now.

The parsing and the choice of stage are plain functions (`operators`, `stuck_stage`,
`waits_for`), so they are tested without Ray.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

STALL_ENV = "G2W_STAGE_STALL_S"
DEFAULT_STALL_S = 600.0

# One line of Ray Data's no-progress message per operator still running.
_OPERATOR = re.compile(
    r"^\s*-\s*(?P<name>.+?):\s*(?P<active>\d+) active task\(s\),\s*(?P<finished>\d+) finished,"
    r"\s*(?P<taken>\d+) outputs taken",
    re.M,
)
_STEP = re.compile(r"\(([A-Za-z_]\w*)\)")


class StageStalled(RuntimeError):
    """No stage of a job made progress for `seconds`; `stage` is the one holding the work."""

    def __init__(self, stage: str, waits: str, seconds: float):
        self.stage, self.waits, self.seconds = stage, waits, seconds
        super().__init__(f"stage {stage} made no progress for {seconds:g} s: {waits}")


@dataclass(frozen=True)
class Operator:
    """What Ray Data says of one running operator (its name may carry several fused steps)."""

    name: str
    active: int
    finished: int
    taken: int

    @property
    def steps(self) -> list[str]:
        """The step names in the operator's name, `MapBatches(A)->MapBatches(B)` giving A, B."""
        return _STEP.findall(self.name)


def stall_seconds(value: float | None = None) -> float:
    """The stall time: `value`, else G2W_STAGE_STALL_S, else DEFAULT_STALL_S; must be positive."""
    if value is None:
        text = os.environ.get(STALL_ENV, "").strip()
        value = float(text) if text else DEFAULT_STALL_S
    if not value > 0:
        raise ValueError(f"the stage stall time must be positive, got {value!r}")
    return float(value)


@contextmanager
def stall_time(value: float | None) -> Iterator[None]:
    """G2W_STAGE_STALL_S set to `value` while the block runs (nothing changes for None): a
    command's `--stall-s` reaches every dataset its job runs, as the variable would."""
    if value is None:
        yield
        return
    old = os.environ.get(STALL_ENV)
    os.environ[STALL_ENV] = str(stall_seconds(value))
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(STALL_ENV, None)
        else:
            os.environ[STALL_ENV] = old


def operators(message: str) -> list[Operator]:
    """The operators Ray Data's no-progress message lists, in its (upstream-first) order."""
    return [
        Operator(m["name"].strip(), int(m["active"]), int(m["finished"]), int(m["taken"]))
        for m in _OPERATOR.finditer(message)
    ]


def stuck_stage(ops: Sequence[Operator], stages: Sequence[str]) -> tuple[str, Operator | None]:
    """The job's stage holding the work, and the operator that carries it.

    Upstream stages stop when the one after them cannot take their output, so the stage to name
    is the furthest downstream one that has been given input: the first operator listed (those
    before it have finished) or one whose upstream neighbour has handed over outputs. Of a fused
    operator, its first step the job knows is named. With no `stages` given, every step Ray
    names is one.
    """
    known = set(stages) or {name for op in ops for name in op.steps}
    chosen: tuple[str, Operator | None] | None = None
    for i, op in enumerate(ops):
        names = [s for s in op.steps if s in known]
        if not names:
            continue
        if i == 0 or ops[i - 1].taken > 0:
            chosen = (names[0], op)
    if chosen is not None:
        return chosen
    return (stages[0], None) if stages else ("unknown", ops[0] if ops else None)


def _amounts(resources: Mapping[str, float]) -> str:
    parts = [f"{float(v):g} {k}" for k, v in sorted(resources.items()) if v]
    return " and ".join(parts) if parts else "nothing"


def waits_for(op: Operator | None, request: Mapping[str, float], free: Mapping[str, float]) -> str:
    """What the stuck stage waits for: its running tasks, or resources nobody frees."""
    if op is not None and op.active > 0:
        return f"{op.active} running task(s) that never finished ({op.finished} finished before)"
    if not any(request.values()):
        return f"resources: its workers were never scheduled ({_amounts(dict(free))} free now)"
    free_now = {k: float(free.get(k, 0.0)) for k in request if request[k]}
    return (
        f"resources: each worker asks for {_amounts(request)}, the cluster has {_amounts(free_now)} "
        f"free (others' reservations hold the rest)"
        if any(free_now.get(k, 0.0) < float(v) for k, v in request.items() if v)
        else f"resources: each worker asks for {_amounts(request)}, and its workers were never scheduled"
    )


def diagnose(
    message: str, requests: Mapping[str, Mapping[str, float]], free: Mapping[str, float], seconds: float
) -> StageStalled:
    """`StageStalled` from Ray Data's no-progress message and the stages' requests (by name)."""
    stage, op = stuck_stage(operators(message), list(requests))
    return StageStalled(stage, waits_for(op, requests.get(stage, {}), free), seconds)


def watch(ds, stall_s: float | None = None):
    """The dataset, failing its execution once no operator moved for the stall time."""
    ds.context.execution_no_progress_timeout_s = stall_seconds(stall_s)
    return ds


def watch_if_set(ds):
    """`watch` with G2W_STAGE_STALL_S when it is set; otherwise Ray Data's own (longer) default
    stays, for jobs whose single tasks may legitimately run long (curation of long sources)."""
    return watch(ds) if os.environ.get(STALL_ENV, "").strip() else ds


@contextmanager
def stalls_named(ds, requests: Mapping[str, Mapping[str, float]] | None = None) -> Iterator[None]:
    """Around the loop that iterates `ds` (made by `watch`): Ray Data's no-progress timeout
    comes out as `StageStalled`, naming one of `requests`' stages (any step Ray names, without)."""
    import ray
    from ray.data.exceptions import ExecutionTimeoutError

    try:
        yield
    except ExecutionTimeoutError as exc:
        free = ray.available_resources() if ray.is_initialized() else {}
        raise diagnose(str(exc), requests or {}, free, ds.context.execution_no_progress_timeout_s) from exc
