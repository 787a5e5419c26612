"""Refusing an output that the cluster's workers cannot all reach.

Workers write shards, clips and reports themselves, on whichever node they run. A local path on
a cluster of several nodes names a different folder on every node: each worker would write its
part into its own node's disk, the driver would find most of the run missing, and a resume would
redo it. So a job on more than one node takes a URI (`s3://`, `gs://`), or a path under a mount
that the user says every node shares (NFS, EFS, a Kubernetes volume), named in `G2W_SHARED_PATHS`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from g2w.io import storage

SHARED_ENV = "G2W_SHARED_PATHS"  # colon-separated mount points that every node sees alike


class OutputNotShared(ValueError):
    """A local output on a multi-node cluster, outside every declared shared mount."""


def shared_mounts(environ: Mapping[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    return [os.path.realpath(p) for p in env.get(SHARED_ENV, "").split(":") if p.strip()]


def require_shared_output(path: str, nodes: int, environ: Mapping[str, str] | None = None) -> None:
    """Raise OutputNotShared unless `path` is reachable alike from all `nodes` nodes."""
    if storage.is_uri(path) or nodes <= 1:
        return
    real = os.path.realpath(os.path.abspath(path))
    for mount in shared_mounts(environ):
        if real == mount or real.startswith(mount.rstrip(os.sep) + os.sep):
            return
    raise OutputNotShared(
        f"output {path!r} is a local path, but the cluster has {nodes} nodes and each worker writes on its own "
        f"node: give an object-store URI (s3://bucket/run) or a path under a mount every node shares, "
        f"listed in {SHARED_ENV} (colon-separated)"
    )


def alive_nodes() -> int:
    """Nodes of the connected Ray cluster that are alive now."""
    import ray

    return sum(1 for n in ray.nodes() if n.get("Alive"))
