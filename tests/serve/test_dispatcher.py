"""The dispatcher outlives store errors and reports a wedged store through check_health (no Ray)."""

from __future__ import annotations

import asyncio
import time

import pytest

from serve import api as api_module
from serve.api import Api
from serve.capacity import Lane, app_capacities, deployment_capacity, lane_slots, room
from serve.settings import ServiceSettings
from serve.store import JobStore, Limits


class FlakyStore:
    """claim_next fails `failures` times, then finds the queue empty."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    def claim_next(self, kinds, max_running_per_owner=None, lease_s=None, methods=None, other_methods=False):
        self.calls += 1
        if self.calls <= self.failures:
            raise OSError("database is locked")
        return None

    def recover(self):
        return {"requeued": 0, "failed": 0}

    def expired(self, cutoff):
        return []

    def drop_empty_batches(self, cutoff):
        return 0


def _replica(store, settings=None, handles=None) -> Api:
    """Api's state as its __init__ makes it, on `store` and `handles`, without Serve."""
    # The class as written, under Serve's ingress wrapper (which needs a running Serve).
    cls = next(c for c in Api.func_or_class.__mro__ if c.__module__ == "serve.api" and "_dispatch" in vars(c))
    replica = object.__new__(cls)
    s = settings or ServiceSettings(insecure_no_auth=True, max_running=1)
    replica.store, replica.s, replica.handles = store, s, handles or {"cpu": None, "evaluation": None}
    replica.lanes = api_module._lanes(replica.handles)
    replica.caps = {lane.name: 1 if lane.kind == "evaluation" else s.max_running for lane in replica.lanes}
    replica.kind_caps = {"removal": s.max_running}
    replica.slots = api_module.lane_slots(replica.lanes, replica.caps, {})
    replica.capacity_at = replica.renewed_at = replica.swept_at = float("-inf")
    replica.running = dict.fromkeys(("removal", "detection", "evaluation"), 0)
    replica.lane_running = dict.fromkeys(replica.slots, 0)
    replica.inflight = {}
    replica.wake, replica.failing_since, replica.recovered = asyncio.Event(), None, {}
    return replica


def test_store_errors_are_retried_and_a_wedged_store_fails_the_health_check(monkeypatch):
    async def run():
        monkeypatch.setattr(api_module, "BACKOFF_S", 0.001)
        replica = _replica(FlakyStore(failures=3))
        replica.dispatcher = asyncio.get_event_loop().create_task(replica._dispatch())
        deadline = time.monotonic() + 10
        while (replica.store.calls <= 3 or replica.failing_since is not None) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert not replica.dispatcher.done() and replica.failing_since is None  # recovered, still dispatching
        await replica.check_health()
        wedged = _replica(FlakyStore(failures=10**9))
        wedged.dispatcher = asyncio.get_event_loop().create_task(wedged._dispatch())
        await asyncio.sleep(0.05)
        assert not wedged.dispatcher.done()
        monkeypatch.setattr(api_module, "WEDGED_S", 0.0)
        with pytest.raises(RuntimeError, match="job store has failed"):
            await wedged.check_health()
        assert (await wedged.health())["ok"] is False
        for r in (replica, wedged):
            r.dispatcher.cancel()

    asyncio.run(run())


# What the Serve controller reports for the app (ServeInstanceDetails, as `serve status` shows it):
# a CPU Remover of two fixed replicas, an autoscaled Detector, one Judge.
SERVE_DETAILS = {
    "applications": {
        "app": {
            "deployments": {
                "CpuRemover": {"deployment_config": {"num_replicas": 2, "max_ongoing_requests": 1}},
                "Detector": {
                    "deployment_config": {
                        "num_replicas": None,
                        "max_ongoing_requests": 1,
                        "autoscaling_config": {"min_replicas": 0, "max_replicas": 3},
                    },
                    "target_num_replicas": 0,
                },
                "Judge": {"deployment_config": {"num_replicas": 1, "max_ongoing_requests": 1}},
            }
        }
    }
}


def test_capacity_is_replicas_times_ongoing_requests_with_autoscaling_at_its_maximum():
    deployments = ["CpuRemover", "Detector", "Judge", "GpuRemover"]
    caps = app_capacities(SERVE_DETAILS, "app", deployments)
    assert caps == {"CpuRemover": 2, "Detector": 3, "Judge": 1, "GpuRemover": None}
    assert deployment_capacity({"deployment_config": {"num_replicas": 3}}) == 15  # Serve's default of 5 each
    assert deployment_capacity({"deployment_config": {"num_replicas": "auto"}, "target_num_replicas": 2}) == 10
    lanes = [Lane("cpu", "removal", "CpuRemover", False), Lane("gpu", "removal", None, True)]
    slots = lane_slots(lanes, {"cpu": 8, "gpu": 8}, caps)
    assert slots == {"cpu": 2, "gpu": 1}  # a missing worker keeps one slot, to fail its jobs with a reason
    assert room(slots, {"cpu": 1, "gpu": 1}, {"removal": 2}, lanes) == {"cpu": 0, "gpu": 0}  # max-running holds
    assert room(slots, {"cpu": 1}, {"removal": 8}, lanes) == {"cpu": 1, "gpu": 1}


class Worker:
    """A deployment handle whose calls wait until the test lets them finish, as calls wait in
    Serve's queue for a busy replica; it never reports progress, so only the dispatcher renews."""

    def __init__(self, name: str):
        self.deployment_name, self.app_name = name, "app"
        self.calls: list[dict] = []
        self.release = asyncio.Event()
        self.remove = self.evaluate = self.detect = self

    def remote(self, job: dict):
        self.calls.append(job)

        async def answer():
            await self.release.wait()
            return {"state": "succeeded", "files": [], "frames": 1}

        return answer()


def test_claims_stop_at_the_workers_capacity_and_waiting_calls_keep_their_lease(tmp_path, monkeypatch):
    """Five removals, a CPU Remover that runs two at once: two are claimed and three stay queued
    (cancelable, not parked in Serve's queue). The claimed two wait several leases for their
    calls to return and are never requeued to a second attempt."""

    async def run():
        monkeypatch.setattr(
            api_module, "_serve_capacities", lambda h, names: app_capacities(SERVE_DETAILS, "app", names)
        )
        store = JobStore(str(tmp_path / "jobs.sqlite"))
        ids = [store.admit(_removal(i), "alice", ROOMY)[0]["id"] for i in range(5)]
        cpu, judge = Worker("CpuRemover"), Worker("Judge")
        lease = 0.6
        replica = _replica(
            store,
            ServiceSettings(insecure_no_auth=True, max_running=8, lease_s=lease),
            {"cpu": cpu, "evaluation": judge},
        )
        replica.dispatcher = asyncio.get_event_loop().create_task(replica._dispatch())
        await asyncio.sleep(4 * lease)
        states = [store.get(i)["state"] for i in ids]
        assert replica.slots["cpu"] == 2 and states == ["running"] * 2 + ["queued"] * 3
        assert len(cpu.calls) == 2 and [store.get(i)["attempts"] for i in ids[:2]] == [1, 1]
        assert all(store.get(i)["lease_until"] > time.time() for i in ids[:2])  # renewed while waiting
        cpu.release.set()
        for _ in range(200):
            if all(store.get(i)["state"] == "succeeded" for i in ids):
                break
            await asyncio.sleep(0.05)
        assert [store.get(i)["state"] for i in ids] == ["succeeded"] * 5
        assert len(cpu.calls) == 5 and {c["attempts"] for c in cpu.calls} == {1}  # one attempt each, never two
        replica.dispatcher.cancel()
        store.close()

    asyncio.run(run())


ROOMY = Limits(100, 100)


def _removal(i: int) -> dict:
    return {"kind": "removal", "method": "identity", "params": {}, "input": f"/in/{i}.mp4", "workdir": f"/tmp/none/{i}"}
