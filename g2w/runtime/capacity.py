"""What the cluster can grow to, not only what is up now.

An autoscaling cluster whose GPU workers start at zero shows no GPU when a job starts, so a job
that looked only at `ray.cluster_resources()` would run CLIP or a GPU removal method on CPU and
never use the GPU nodes the autoscaler would have started. Jobs therefore ask `gpus_possible`:
the most GPUs the cluster may hold, which is the largest of
- the GPUs up now;
- the cluster's declared node types (the autoscaler's cluster config in the GCS, which
  autoscaler v2 and KubeRay publish: `max_workers` x GPUs per node type);
- `G2W_MAX_GPUS`, set by whoever submits the job (`ray job submit --runtime-env-json
  '{"env_vars": {"G2W_MAX_GPUS": "8"}}'`) when the cluster publishes no config.
A pool that asks for GPUs nobody has up yet makes the autoscaler start them.
"""

from __future__ import annotations

import os

import ray

MAX_GPUS_ENV = "G2W_MAX_GPUS"


def declared_resources() -> dict:
    """Most of each resource the autoscaler's node types can reach; empty when the cluster does
    not autoscale or publishes no config (autoscaler v1)."""
    try:
        return dict(ray._private.state.state.get_max_resources_from_cluster_config() or {})
    except Exception:  # an older GCS, or no cluster config: nothing declared
        return {}


def configured_gpus(environ: dict | None = None) -> float:
    """GPUs the submitter says the cluster can scale to (G2W_MAX_GPUS), 0 when unset."""
    value = (os.environ if environ is None else environ).get(MAX_GPUS_ENV, "").strip()
    if not value:
        return 0.0
    gpus = float(value)
    if gpus < 0:
        raise ValueError(f"{MAX_GPUS_ENV} must be >= 0, got {value!r}")
    return gpus


def possible(now: dict, declared: dict, configured_gpus: float) -> dict:
    """The most of each resource the cluster may hold: per resource the largest of what is up,
    what the node types declare and, for GPUs, what the submitter configured."""
    out = {k: max(float(now.get(k, 0)), float(declared.get(k, 0))) for k in set(now) | set(declared)}
    out["GPU"] = max(out.get("GPU", 0.0), configured_gpus)
    return out


def cluster_capacity(now: dict | None = None) -> dict:
    """`possible` for the attached cluster (Ray must be initialized)."""
    return possible(ray.cluster_resources() if now is None else now, declared_resources(), configured_gpus())


def gpus_possible(now: dict | None = None) -> float:
    """GPUs a job may plan for: those up now, or those the cluster can start."""
    return cluster_capacity(now).get("GPU", 0.0)
