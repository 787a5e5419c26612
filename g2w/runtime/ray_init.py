"""Starting or attaching to Ray.

With RAY_ADDRESS set (a cluster, or `ray job submit`), attach to it. Otherwise start an embedded
local cluster sized for the machine: every core, and an object store of at most a quarter of RAM
(capped at 4 GiB) leaving memory to the workers that decode and encode.

A local cluster's own logs are kept in the run folder (`g2w.runtime.ray_logs`), not printed.
How much Ray says (its messages, the workers' output, Ray Data's progress) follows the mode the
command line chose in `g2w.runtime.logs`: quiet by default, everything with `--verbose`.
"""

from __future__ import annotations

import logging
import os
import socket

import psutil
import ray

from g2w.runtime.logs import quiet_ray_data, ray_init_options
from g2w.runtime.ray_logs import copy_session_logs, link_session_logs
from g2w.runtime.shared_output import alive_nodes, require_shared_output

_MAX_OBJECT_STORE_BYTES = 4 << 30
log = logging.getLogger(__name__)


def _logs_folder(context) -> str:
    """Where this driver's Ray session keeps its logs (on the head node of a cluster)."""
    session = getattr(context, "address_info", {}).get("session_dir")
    return os.path.join(session, "logs") if session else "the Ray session folder"


def _free_port(host: str) -> int:
    """A port nobody listens on now, for the local dashboard: Ray's default one may be another cluster's."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def local_state_api_options(host: str = "127.0.0.1") -> dict:
    """`ray.init` arguments that give a local cluster a State API its own workers can reach.

    Ray Train's placement-group cleaner, a detached actor beside every fit, asks the State API once a
    second whether the fit's controller still lives. That API is served by the dashboard process, and
    a worker finds it from the cluster address, which on a machine running several Ray instances it
    cannot tell apart. So the dashboard runs, on a port chosen here, and the job's workers are told
    that address (`RAY_API_SERVER_ADDRESS`, which the State API reads before anything else).
    """
    port = _free_port(host)
    return {
        "include_dashboard": True,
        "dashboard_host": host,
        "dashboard_port": port,
        "runtime_env": {"env_vars": {"RAY_API_SERVER_ADDRESS": f"http://{host}:{port}"}},
    }


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
            context = ray.init(**size, **local_state_api_options(), **options)
        logs = _logs_folder(context)
        if not os.environ.get("RAY_ADDRESS"):
            logs = link_session_logs(logs, output) or logs
        log.info("ray: %s CPUs; its logs: %s", int(ray.cluster_resources().get("CPU", 0)), logs)
    quiet_ray_data()
    if output is not None:
        require_shared_output(output, alive_nodes())
    return ray.cluster_resources()


def shutdown_ray() -> None:
    """Stop Ray; a local cluster's logs are then copied into the run folder."""
    if ray.is_initialized():
        ray.shutdown()
    copy_session_logs()
