"""What the cluster can grow to, not only what is up now.

An autoscaling cluster whose GPU workers start at zero shows no GPU when a job starts, so a job
that looked only at `ray.cluster_resources()` would run CLIP or a GPU removal method on CPU and
never use the GPU nodes the autoscaler would have started. Ray publishes the declared node
types only through private state, so the job is told instead: `G2W_MAX_GPUS` and `G2W_MAX_CPUS`,
the most GPUs and CPUs its worker groups can reach. cluster.yaml and the KubeRay manifests set
them on every node (so every job there sees them); on another cluster the submitter sets them
(`ray job submit --runtime-env-json '{"env_vars": {"G2W_MAX_GPUS": "8"}}'`).
A pool that asks for GPUs nobody has up yet makes the autoscaler start them, and its tasks wait
until one is up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import ray

MAX_ENV = {"GPU": "G2W_MAX_GPUS", "CPU": "G2W_MAX_CPUS"}


def configured(environ: Mapping[str, str] | None = None) -> dict:
    """The most of each resource the submitter says the cluster can scale to (0 when unset)."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    out = {}
    for resource, name in MAX_ENV.items():
        value = env.get(name, "").strip()
        amount = float(value) if value else 0.0
        if amount < 0:
            raise ValueError(f"{name} must be >= 0, got {value!r}")
        out[resource] = amount
    return out


def possible(now: dict, limits: dict) -> dict:
    """The most of each resource the cluster may hold: per resource the larger of what is up and
    what the job was told the cluster can reach."""
    return {k: max(float(now.get(k, 0)), float(limits.get(k, 0))) for k in set(now) | set(limits)}


def cluster_capacity(now: dict | None = None) -> dict:
    """`possible` for the attached cluster (Ray must be initialized)."""
    return possible(ray.cluster_resources() if now is None else now, configured())


def gpus_possible(now: dict | None = None) -> float:
    """GPUs a job may plan for: those up now, or those the cluster can start."""
    return cluster_capacity(now).get("GPU", 0.0)
