"""The step protocol: plain, Ray-free units of pipeline work.

A step is a dataclass whose fields are its configuration. `setup()` loads heavy state (models,
fonts) once per worker; `__call__` maps a batch (a dict of equal-length numpy arrays) to a batch
and must be deterministic given the step's fields. `resources()` says what one worker needs;
`g2w.runtime.pipeline` turns that into Ray Data tasks or an actor pool.

Bad input never raises out of `__call__`: each item becomes a row, and `item_errors` turns what
failed on one item into that row's `status="error"` with a machine-readable `reason`, so a batch
never loses its other items. `rows_batch` turns those rows into the batch a step returns.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

Batch = dict[str, np.ndarray]


@dataclass(frozen=True)
class Resources:
    """What one worker of a step needs. `max_workers=None` lets the runtime fill the cluster.
    `memory_bytes` (0: not declared) is the heap one worker holds at its peak, so the scheduler
    never packs more workers on a node than its memory takes."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0
    batch_size: int = 16
    max_workers: int | None = None
    memory_bytes: int = 0


class Step(ABC):
    """Base class for steps; subclasses are @dataclass-decorated with their config as fields."""

    def resources(self) -> Resources:
        return Resources()

    def setup(self) -> None:  # noqa: B027  (an optional hook: most steps have no state)
        """Load per-worker state. Steps that override this run in a long-lived actor pool."""

    @abstractmethod
    def __call__(self, batch: Batch) -> Batch:
        """Transform one batch; rows may be added or dropped."""

    @property
    def name(self) -> str:
        return type(self).__name__

    def needs_actor(self) -> bool:
        """Stateful (overrides setup) or GPU steps keep their workers alive between batches."""
        return type(self).setup is not Step.setup or self.resources().num_gpus > 0


def rows_batch(rows: list[dict], names: list[str]) -> Batch:
    """Per-item rows as a batch: one array per column of `names`."""
    return {name: np.array([r[name] for r in rows]) for name in names}


@contextmanager
def item_errors(
    row: dict,
    failed: str,
    reasons: dict[type, str] | None = None,
    caught: tuple[type, ...] = (OSError, ValueError),
    last_chars: int | None = None,
) -> Iterator[dict]:
    """Work on one item, recorded in its `row`: an exception of a class in `reasons` (one that carries
    its own `reason`) makes `status="error"`, `reason=prefix + exc.reason`; one of `caught` makes
    `reason=failed`; anything else passes through. `message` says what happened (its last
    `last_chars` characters), and `seconds` is the time the work took."""
    reasons = reasons or {}
    start = time.perf_counter()
    try:
        yield row
    except (*reasons, *caught) as exc:
        prefix = next((p for cls, p in reasons.items() if isinstance(exc, cls)), None)
        reason, message = (
            (failed, f"{type(exc).__name__}: {exc}") if prefix is None else (prefix + exc.reason, str(exc))
        )
        row.update(status="error", reason=reason, message=message[-last_chars:] if last_chars else message)
    finally:
        row["seconds"] = round(time.perf_counter() - start, 3)
