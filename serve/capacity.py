"""How many jobs the dispatcher may have in flight per worker deployment (no Ray here).

A job the dispatcher claims is `running` in the store from that moment, but a worker only starts
it once one of its replicas has room; until then the call waits in Serve's queue on the ingress.
Claiming more than the workers can ever run at once parks jobs there, out of reach of a cancel
and looking busy while nothing runs. So each lane (CPU removals, GPU removals, detections,
evaluations) is bounded by its deployment's real capacity: replicas times `max_ongoing_requests`,
with an autoscaled deployment counted at its `max_replicas` (it only scales up when it sees
requests waiting, so the dispatcher must be allowed to send that many). The figures come from
Serve's own view of the running deployments (`ServeInstanceDetails`), so `config.yaml`'s
overrides count, not only `serve/app.py`'s defaults.

A call can still wait (a replica starting, a removal's detection pass behind other detections);
the dispatcher renews the lease of every job it has in flight, so a wait never expires a lease.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_MAX_ONGOING = 5  # Serve's default max_ongoing_requests


@dataclass(frozen=True)
class Lane:
    """Jobs of one `kind` (and, for removals, CPU or GPU methods) run by one deployment."""

    name: str
    kind: str
    deployment: str | None  # the deployment's name in Serve (None: no such worker in this app)
    gpu: bool | None = None  # removals only: the methods' `gpu` flag


def deployment_capacity(details: Mapping | None) -> int | None:
    """Requests the deployment can run at once, from one entry of ServeInstanceDetails'
    `deployments` (its `deployment_config`); None when the entry does not say."""
    if not details:
        return None
    config = details.get("deployment_config") or {}
    per_replica = config.get("max_ongoing_requests") or DEFAULT_MAX_ONGOING
    autoscaling = config.get("autoscaling_config") or {}
    replicas = autoscaling.get("max_replicas") if autoscaling else None
    if replicas is None:
        replicas = config.get("num_replicas")
    if not isinstance(replicas, int):  # "auto" without a resolved config, or absent
        replicas = details.get("target_num_replicas")
    if not isinstance(replicas, int) or not isinstance(per_replica, int):
        return None
    return max(0, replicas) * max(1, per_replica)


def app_capacities(serve_details: Mapping, app: str, deployments: list[str]) -> dict[str, int | None]:
    """Capacity of each named deployment of application `app`, from Serve's instance details."""
    found = ((serve_details.get("applications") or {}).get(app) or {}).get("deployments") or {}
    return {name: deployment_capacity(found.get(name)) for name in deployments}


def lane_slots(lanes: list[Lane], caps: Mapping[str, int], capacities: Mapping[str, int | None]) -> dict[str, int]:
    """Jobs each lane may have in flight: its setting's cap (`caps`, by lane name), lowered to its
    deployment's capacity when that is known. A lane whose deployment is missing keeps one slot,
    so a job queued before a restart that removed its worker is still claimed and failed with a
    reason instead of waiting forever."""
    slots = {}
    for lane in lanes:
        cap = caps[lane.name]
        if lane.deployment is None:
            slots[lane.name] = min(cap, 1)
            continue
        known = capacities.get(lane.deployment)
        slots[lane.name] = cap if known is None else min(cap, known)
    return slots


def room(slots: Mapping[str, int], running: Mapping[str, int], kind_caps: Mapping[str, int], lanes: list[Lane]) -> dict:
    """Free slots per lane now: its own slots less its jobs in flight, and never more than what is
    left of its kind's cap (removals of both lanes together stay within `max-running`)."""
    by_kind: dict[str, int] = {}
    for lane in lanes:
        by_kind[lane.kind] = by_kind.get(lane.kind, 0) + running.get(lane.name, 0)
    return {
        lane.name: max(
            0,
            min(
                slots[lane.name] - running.get(lane.name, 0),
                kind_caps.get(lane.kind, slots[lane.name]) - by_kind[lane.kind],
            ),
        )
        for lane in lanes
    }
