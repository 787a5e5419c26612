"""The job store on its own: claims, idempotency, cancel, and recovery after a restart."""

from __future__ import annotations

import sqlite3

from serve.store import MAX_ATTEMPTS, JobStore


def _job(store, key=None, **kw):
    return store.create("removal", "identity", {"options": {}}, "/in/a.mp4", "/out/job", idempotency_key=key, **kw)


def test_same_key_returns_same_job(tmp_path):
    store = JobStore(str(tmp_path / "jobs.sqlite"))
    first, created = _job(store, key="removal:k1")
    again, created_again = _job(store, key="removal:k1")
    other, _ = _job(store, key="removal:k2")
    assert created and not created_again
    assert again["id"] == first["id"] and other["id"] != first["id"]
    assert store.count_active() == 2


def test_claims_oldest_once_and_cancel_wins_over_finish(tmp_path):
    store = JobStore(str(tmp_path / "jobs.sqlite"))
    a, _ = _job(store)
    b, _ = _job(store)
    claimed = store.claim_next(("removal",))
    assert claimed["id"] == a["id"] and claimed["state"] == "running" and claimed["attempts"] == 1
    assert store.claim_next(("evaluation",)) is None
    store.cancel(a["id"])
    assert not store.finish(a["id"], "succeeded", result={"files": ["edited.mp4"]})  # canceled meanwhile
    assert store.get(a["id"])["state"] == "canceled"
    assert store.claim_next(("removal",))["id"] == b["id"]
    assert store.claim_next(("removal",)) is None
    assert store.finish(b["id"], "failed", reason="source_corrupt", errors=[{"reason": "source_corrupt"}])
    done = store.get(b["id"])
    assert (done["state"], done["errors"][0]["reason"]) == ("failed", "source_corrupt")
    assert store.cancel(b["id"])["state"] == "failed"  # finished jobs stay as they are


def test_restart_requeues_running_jobs_then_gives_up(tmp_path):
    path = str(tmp_path / "jobs.sqlite")
    store = JobStore(path)
    job, _ = _job(store)
    queued, _ = _job(store)
    store.claim_next(("removal",))
    store.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    for attempt in range(1, MAX_ATTEMPTS):
        store = JobStore(path)  # a restart
        assert store.recover() == {"requeued": 1, "failed": 0}
        assert store.get(queued["id"])["state"] == "queued"
        assert store.claim_next(("removal",))["id"] == job["id"]
        store.close()
    store = JobStore(path)
    assert store.recover() == {"requeued": 0, "failed": 1}
    lost = store.get(job["id"])
    assert (lost["state"], lost["reason"]) == ("failed", "interrupted")


def test_batch_record_tracks_its_jobs(tmp_path):
    store = JobStore(str(tmp_path / "jobs.sqlite"))
    job, _ = _job(store, batch_id="batch_" + "0" * 20)
    items = [{"line": 1, "job_id": job["id"], "state": "queued"},
             {"line": 2, "state": "rejected", "reason": "unknown_method"}]
    store.create_batch("batch_" + "0" * 20, items, "batch:key")
    store.claim_next(("removal",))
    store.finish(job["id"], "succeeded")
    batch = store.batch_by_key("batch:key")
    assert batch["counts"] == {"succeeded": 1, "rejected": 1} and batch["done"]
