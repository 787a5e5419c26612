"""One training harness for every g2w model.

A model plugs in as a `TrainTask` (`g2w.train_task`: build the model, name what trains, load a
batch, compute the loss, validate). The loop itself is plain torch (`g2w.train.loop`), so it also
runs in-process for tests (`LocalSession`); `g2w.runtime.train.run_fit` runs it on Ray Train with
DDP or FSDP, gradient accumulation, checkpoint/resume and a report.
"""

from g2w.train.config import FitConfig
from g2w.train_task import TrainTask

__all__ = ["FitConfig", "TrainTask"]
