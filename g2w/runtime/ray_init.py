"""Starting or attaching to Ray.

With RAY_ADDRESS set (a cluster, or `ray job submit`), attach to it. Otherwise start an embedded
local cluster sized for the machine: every core, and an object store of at most a quarter of RAM
(capped at 4 GiB) leaving memory to the workers that decode and encode.

On a terminal Ray Data draws its live progress bars. Anywhere else (a log file, CI, `ray job
submit`'s log) it would instead log every operator's state every few seconds, hundreds of lines
that bury the job's own one line per stage, so there its progress reporting is turned off.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import psutil
import ray
from ray.data import DataContext

from g2w.runtime.shared_output import alive_nodes, require_shared_output

_MAX_OBJECT_STORE_BYTES = 4 << 30


class _DropAuthDefaultNotice(logging.Filter):
    """A local cluster turns token auth on by default and says so as a warning at every start.

    That is the safe setting we want, so the notice is dropped; any other auth message stays.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Token authentication is enabled")


logging.getLogger("ray._private.authentication.authentication_token_setup").addFilter(_DropAuthDefaultNotice())


class _DropProgressOffNotice(logging.Filter):
    """Ray Data warns once that its progress bars are off; here that is the intended setting."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("Progress bars disabled")


logging.getLogger("ray.data._internal.progress").addFilter(_DropProgressOffNotice())


def quiet_progress_off_terminal(stream=None) -> bool:
    """Ray Data's progress on a terminal only; returns whether it stays on."""
    on = (sys.stdout if stream is None else stream).isatty()
    DataContext.get_current().enable_progress_bars = on
    return on


def local_cluster_size() -> dict:
    """CPU count and object-store bytes for an embedded cluster on this machine."""
    total = psutil.virtual_memory().total
    return {
        "num_cpus": os.cpu_count() or 1,
        "object_store_memory": int(min(_MAX_OBJECT_STORE_BYTES, total // 4)),
    }


def init_ray(num_cpus: int | None = None, output: str | None = None) -> dict:
    """Attach to RAY_ADDRESS or start a local cluster; returns the cluster's resources.

    `output`, the folder the job's workers write, is refused before any work when the cluster's
    nodes cannot all reach it (`shared_output`). Safe to call twice: an already-initialized Ray
    is reused.
    """
    if not ray.is_initialized():
        quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
        if os.environ.get("RAY_ADDRESS"):
            ray.init(address=os.environ["RAY_ADDRESS"], **quiet)
        else:
            size = local_cluster_size()
            if num_cpus is not None:
                size["num_cpus"] = num_cpus
            ray.init(include_dashboard=False, **size, **quiet)
    quiet_progress_off_terminal()
    if output is not None:
        require_shared_output(output, alive_nodes())
    return ray.cluster_resources()


def shutdown_ray() -> None:
    if ray.is_initialized():
        ray.shutdown()
