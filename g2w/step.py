"""The step protocol: plain, Ray-free units of pipeline work.

A step is a dataclass whose fields are its configuration. `setup()` loads heavy state (models,
fonts) once per worker; `__call__` maps a batch (a dict of equal-length numpy arrays) to a batch
and must be deterministic given the step's fields. `resources()` says what one worker needs;
`g2w.runtime.pipeline` turns that into Ray Data tasks or an actor pool.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

Batch = dict[str, np.ndarray]


@dataclass(frozen=True)
class Resources:
    """What one worker of a step needs. `max_workers=None` lets the runtime fill the cluster."""

    num_cpus: float = 1.0
    num_gpus: float = 0.0
    batch_size: int = 16
    max_workers: int | None = None


class Step(ABC):
    """Base class for steps; subclasses are @dataclass-decorated with their config as fields."""

    def resources(self) -> Resources:
        return Resources()

    def setup(self) -> None:
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
