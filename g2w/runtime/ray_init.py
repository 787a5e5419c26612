"""Starting or attaching to Ray.

With RAY_ADDRESS set (a cluster, or `ray job submit`), attach to it. Otherwise start an embedded
local cluster sized for the machine: every core, and an object store of at most a quarter of RAM
(capped at 4 GiB) leaving memory to the workers that decode and encode.

How much Ray says (its messages, the workers' output, Ray Data's progress) follows the mode the
command line chose in `g2w.runtime.logs`: quiet by default, everything with `--verbose`.
"""

from __future__ import annotations

import logging
import os

import psutil
import ray

from g2w.runtime.logs import quiet_ray_data, ray_init_options
from g2w.runtime.shared_output import alive_nodes, require_shared_output

_MAX_OBJECT_STORE_BYTES = 4 << 30
log = logging.getLogger(__name__)


def _logs_folder(context) -> str:
    """Where this driver's Ray session keeps its logs (on the head node of a cluster)."""
    session = getattr(context, "address_info", {}).get("session_dir")
    return os.path.join(session, "logs") if session else "the Ray session folder"


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
        options = ray_init_options()
        if os.environ.get("RAY_ADDRESS"):
            context = ray.init(address=os.environ["RAY_ADDRESS"], **options)
        else:
            size = local_cluster_size()
            if num_cpus is not None:
                size["num_cpus"] = num_cpus
            context = ray.init(include_dashboard=False, **size, **options)
        log.info("ray: %s CPUs; its logs: %s", int(ray.cluster_resources().get("CPU", 0)), _logs_folder(context))
    quiet_ray_data()
    if output is not None:
        require_shared_output(output, alive_nodes())
    return ray.cluster_resources()


def shutdown_ray() -> None:
    if ray.is_initialized():
        ray.shutdown()
