"""One training harness for every g2w model.

A model plugs in as a `TrainTask` (build the model, name what trains, load a batch, compute the
loss, validate); `fit(task, cfg)` trains it on Ray Train (`g2w.runtime.train`) with DDP,
gradient accumulation, checkpoint/resume and a report. The loop itself is plain torch
(`g2w.train.loop`), so it also runs in-process for tests (`LocalSession`).
"""

from g2w.train.config import FitConfig
from g2w.train.task import TrainTask

__all__ = ["FitConfig", "TrainTask", "fit"]


def fit(task: TrainTask, cfg: FitConfig) -> dict:
    """Train `task` under `cfg` on Ray Train; returns the run summary (see `g2w.runtime.train`)."""
    from g2w.runtime.train import run_fit

    return run_fit(task, cfg)
