"""Where a training worker runs: its rank, device, and how it saves and finds checkpoints.

`g2w.runtime.train` provides the Ray Train session; `LocalSession` runs the same loop in this
process with checkpoints in a local folder (one worker: tests, benchmarks, debugging).
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Protocol

import torch


class Session(Protocol):
    rank: int
    world_size: int
    device: torch.device

    def latest_checkpoint(self) -> contextlib.AbstractContextManager[str | None]:
        """The folder of the run's latest checkpoint, or None on a fresh run."""

    def report(self, metrics: dict, checkpoint_dir: str | None) -> None:
        """Publish metrics (and persist `checkpoint_dir` if given). A barrier across workers."""


class LocalSession:
    rank = 0
    world_size = 1

    def __init__(self, output: str, device: str = "cpu"):
        self.output = output
        self.device = torch.device(device)
        self.metrics: list[dict] = []

    def checkpoints(self) -> list[str]:
        if not os.path.isdir(self.output):
            return []
        return sorted(os.path.join(self.output, d) for d in os.listdir(self.output) if d.startswith("checkpoint_"))

    @contextlib.contextmanager
    def latest_checkpoint(self) -> Iterator[str | None]:
        found = self.checkpoints()
        yield found[-1] if found else None

    def report(self, metrics: dict, checkpoint_dir: str | None) -> None:
        self.metrics.append(metrics)
        if checkpoint_dir:
            shutil.copytree(checkpoint_dir, os.path.join(self.output, f"checkpoint_{metrics['step']:08d}"))
