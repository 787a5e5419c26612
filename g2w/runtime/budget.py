"""What a job may use of a cluster that others already hold part of.

A job started beside long-lived reservations (the service's replicas on the same node, each
holding its CPU for as long as it lives) would size its pools and Ray Data's resource limits from
the cluster's totals, and then wait for CPUs that are never released: on a small node its first
stage never gets scheduled. The budget is what the cluster can hold (`capacity`, so an
autoscaling cluster still plans for the nodes it can start) less what others hold when the job
starts, less a margin for a replica that restarts or scales up meanwhile.

The budget is shared by a job's stages: each stage asks for at most its share, so every stage can
hold one worker at once and none waits for the one before it to give its CPU back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import ray

from g2w.runtime.capacity import cluster_capacity

MARGIN_FRACTION = 0.1  # of what is free: room for a reservation that appears after the job starts
MIN_CPUS = 0.05  # a job never plans for less; when even this is not free it stalls, and says so


@dataclass(frozen=True)
class Budget:
    """CPUs and GPUs one job may use at once."""

    cpus: float
    gpus: float = 0.0

    def share(self, stages: int) -> Budget:
        """What one of `stages` stages may ask for, so all of them fit at once."""
        n = max(1, stages)
        return Budget(round(self.cpus / n, 4), round(self.gpus / n, 4))


def free_budget(capacity: Mapping[str, float], total: Mapping[str, float], available: Mapping[str, float]) -> Budget:
    """The budget left by others' reservations: per resource, `capacity` less what is held now
    (`total` less `available`), less the margin; never below MIN_CPUS of CPU."""
    out = {}
    for key in ("CPU", "GPU"):
        held = max(0.0, float(total.get(key, 0)) - float(available.get(key, 0)))
        free = max(0.0, float(capacity.get(key, total.get(key, 0))) - held)
        out[key] = free * (1 - MARGIN_FRACTION) if key == "CPU" else float(int(free))  # GPUs come whole
    return Budget(max(MIN_CPUS, round(out["CPU"], 4)), out["GPU"])


def job_budget() -> Budget:
    """`free_budget` of the attached cluster now (Ray must be initialized)."""
    return free_budget(cluster_capacity(), ray.cluster_resources(), ray.available_resources())
