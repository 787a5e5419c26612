"""One-off Ray tasks for driver-side steps that need a node's resources (k-means on a GPU or
on every core of a CPU node), so a cluster driver on a small head node stays light."""

from __future__ import annotations

from collections.abc import Callable

import ray

from g2w.runtime.pools import pool_selector


def call_remote(fn: Callable, *args, num_cpus: float = 1.0, num_gpus: float = 0.0):
    """fn(*args) run as one Ray task with these resources; returns its result. A GPU request on
    an autoscaling cluster with no GPU node up yet waits for the autoscaler to start one."""
    options = {"num_cpus": num_cpus, "num_gpus": num_gpus, "max_retries": 1, **pool_selector(num_gpus)}
    return ray.get(ray.remote(fn).options(**options).remote(*args))


def largest_node_cpus() -> int:
    """CPUs of the biggest live node: a task asking for more would never be scheduled."""
    return max([int(n["Resources"].get("CPU", 0)) for n in ray.nodes() if n["Alive"]] or [1]) or 1


def put(value) -> ray.ObjectRef:
    """`value` into the object store once; pass the reference to tasks rather than the value, so
    a large array is not serialized into each task's arguments."""
    return ray.put(value)
