"""The dispatcher outlives store errors and reports a wedged store through check_health (no Ray)."""

from __future__ import annotations

import asyncio

import pytest

from serve import api as api_module
from serve.api import Api
from serve.settings import ServiceSettings


class FlakyStore:
    """claim_next fails `failures` times, then finds the queue empty."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    def claim_next(self, kinds, max_running_per_owner=None, lease_s=None):
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


def _replica(store) -> Api:
    # The class as written, under Serve's ingress wrapper (which needs a running Serve).
    cls = next(c for c in Api.func_or_class.__mro__ if c.__module__ == "serve.api" and "_dispatch" in vars(c))
    replica = object.__new__(cls)
    replica.store, replica.slots, replica.running = store, {"removal": 1}, {"removal": 0}
    replica.s = ServiceSettings(insecure_no_auth=True)
    replica.wake, replica.failing_since, replica.recovered = asyncio.Event(), None, {}
    replica.swept_at = float("-inf")
    return replica


def test_store_errors_are_retried_and_a_wedged_store_fails_the_health_check(monkeypatch):
    async def run():
        monkeypatch.setattr(api_module, "BACKOFF_S", 0.001)
        replica = _replica(FlakyStore(failures=3))
        replica.dispatcher = asyncio.get_event_loop().create_task(replica._dispatch())
        # The fourth call counts itself in its thread before the dispatcher sees it succeed.
        for _ in range(500):
            if replica.store.calls > 3 and replica.failing_since is None:
                break
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
