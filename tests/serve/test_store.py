"""The job store on its own: admission, claims, idempotency, cancel, and recovery after a restart.

Every test runs on both backends: a SQLite file, and a fresh database on a real PostgreSQL
server (tests/pg_server.py; skipped, saying why, where the server's binaries are missing).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import time

import pytest

from serve.store import LEASE_S, MAX_ATTEMPTS, JobStore, Limits, Refused

ROOMY = Limits(max_active=100, max_active_per_owner=100)


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path) -> str:
    """Where a test's store lives: a SQLite file, or a postgresql:// URL of an empty database."""
    return str(tmp_path / "jobs.sqlite") if request.param == "sqlite" else request.getfixturevalue("pg_url")


def _spec(**kw):
    return {
        "kind": "removal",
        "method": "identity",
        "params": {"options": {}},
        "input": "/in/a.mp4",
        "workdir": "/out/job",
        **kw,
    }


def _job(store, key=None, owner="default", limits=ROOMY, fingerprint="f", **kw):
    return store.admit(_spec(**kw), owner, limits, key, fingerprint)


def test_same_key_returns_same_job_and_another_payload_is_refused(target):
    store = JobStore(target)
    first, created = _job(store, key="removal:k1")
    again, created_again = _job(store, key="removal:k1")
    other, _ = _job(store, key="removal:k2")
    assert created and not created_again
    assert again["id"] == first["id"] and other["id"] != first["id"]
    with pytest.raises(Refused, match="different request"):
        _job(store, key="removal:k1", fingerprint="g")
    assert store.replay("jobs", "removal:k1", "f") == first["id"] and store.replay("jobs", "removal:k9", "f") is None


def test_admission_limits_hold_under_concurrent_writers(target):
    """Threads on one store and a second connection (another process's view) race for 3 places."""
    stores = [JobStore(target), JobStore(target)]
    limits = Limits(max_active=5, max_active_per_owner=3)
    outcomes, start = [], threading.Barrier(12)

    def one(i):
        start.wait()
        try:
            _job(stores[i % 2], owner="alice", limits=limits)
            outcomes.append("ok")
        except Refused as exc:
            outcomes.append(exc.reason)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["ok"] * 3 + ["owner_queue_full"] * 9
    _job(stores[0], owner="bob", limits=limits)
    _job(stores[0], owner="bob", limits=limits)
    with pytest.raises(Refused) as refused:
        _job(stores[1], owner="carol", limits=limits)
    assert refused.value.reason == "queue_full"
    with pytest.raises(Refused):  # a batch is all or nothing
        stores[0].admit_batch("batch_1", [], [_spec(id=f"job_b{i}") for i in range(2)], "dave", limits)
    assert stores[0].get("job_b0") is None and stores[0].batch("batch_1") is None


def test_dispatch_passes_over_an_owner_at_its_running_cap(target):
    store = JobStore(target)
    greedy = [_job(store, owner="alice")[0] for _ in range(3)]
    polite, _ = _job(store, owner="bob")
    assert store.claim_next(("removal",), max_running_per_owner=2)["id"] == greedy[0]["id"]
    assert store.claim_next(("removal",), max_running_per_owner=2)["id"] == greedy[1]["id"]
    assert store.claim_next(("removal",), max_running_per_owner=2)["id"] == polite["id"]
    assert store.claim_next(("removal",), max_running_per_owner=2) is None


def test_claims_oldest_once_and_cancel_wins_over_finish(target):
    store = JobStore(target)
    a, _ = _job(store)
    b, _ = _job(store)
    claimed = store.claim_next(("removal",))
    assert claimed["id"] == a["id"] and claimed["state"] == "running" and claimed["attempts"] == 1
    assert store.claim_next(("evaluation",)) is None
    assert store.cancel(a["id"])["state"] == "cancelling"  # its worker has not stopped yet
    assert not store.finish(a["id"], "succeeded", result={"files": ["edited.mp4"]})  # canceled meanwhile
    assert store.get(a["id"])["state"] == "cancelling"
    store.stopped(a["id"], None)
    assert store.get(a["id"])["state"] == "canceled" and store.get(a["id"])["finished"] is not None
    assert store.claim_next(("removal",))["id"] == b["id"]
    assert store.claim_next(("removal",)) is None
    assert store.finish(b["id"], "failed", reason="source_corrupt", errors=[{"reason": "source_corrupt"}])
    done = store.get(b["id"])
    assert (done["state"], done["errors"][0]["reason"]) == ("failed", "source_corrupt")
    assert store.cancel(b["id"])["state"] == "failed"  # finished jobs stay as they are


def test_restart_requeues_running_jobs_then_gives_up(target):
    store = JobStore(target)
    job, _ = _job(store)
    queued, _ = _job(store)
    store.claim_next(("removal",))
    store.close()
    if not target.startswith("postgresql://"):
        assert sqlite3.connect(target).execute("PRAGMA journal_mode").fetchone()[0] == "wal"

    for attempt in range(1, MAX_ATTEMPTS):
        store = JobStore(target)  # a restart
        assert store.recover() == {"requeued": 0, "failed": 0}  # its worker may still be on it
        assert store.recover(time.time() + LEASE_S + 1) == {"requeued": 1, "failed": 0}  # its lease expired
        assert store.get(queued["id"])["state"] == "queued"
        assert store.claim_next(("removal",))["id"] == job["id"]
        store.close()
    store = JobStore(target)
    assert store.recover(time.time() + LEASE_S + 1) == {"requeued": 0, "failed": 1}
    lost = store.get(job["id"])
    assert (lost["state"], lost["reason"]) == ("failed", "interrupted")


def test_batch_record_tracks_its_jobs(target):
    store = JobStore(target)
    job = _spec(id="job_" + "1" * 20)
    items = [
        {"line": 1, "job_id": job["id"], "state": "queued"},
        {"line": 2, "state": "rejected", "reason": "unknown_method"},
    ]
    assert store.admit_batch("batch_" + "0" * 20, items, [job], "default", ROOMY, "batch:key", "f") == (
        "batch_" + "0" * 20,
        True,
    )
    assert store.admit_batch("batch_x", items, [_spec(id="job_2")], "default", ROOMY, "batch:key", "f") == (
        "batch_" + "0" * 20,
        False,
    )
    store.claim_next(("removal",))
    store.finish(job["id"], "succeeded")
    batch = store.batch(store.replay("batches", "batch:key", "f"))
    assert batch["counts"] == {"succeeded": 1, "rejected": 1} and batch["done"]


def test_progress_is_recorded_while_running_and_says_when_to_stop(target):
    store = JobStore(target)
    job, _ = _job(store, method="propagate", frames_total=90)
    assert store.progress(job["id"], 5)  # queued, not running: a stray report neither counts nor continues
    assert store.get(job["id"])["frames_done"] == 0
    store.claim_next(("removal",))
    assert not store.progress(job["id"], 30)
    assert store.get(job["id"])["frames_done"] == 30
    assert store.cancel(job["id"])["state"] == "cancelling"
    assert store.progress(job["id"], 45)  # cancelling: the worker must stop
    store.stopped(job["id"], 45)
    done = store.get(job["id"])
    assert (done["state"], done["frames_done"]) == ("canceled", 45)
    assert done["message"] == "the method stopped after 45 of 90 frames"


def test_lists_are_the_owners_newest_first_and_page_by_cursor(target):
    store = JobStore(target)
    mine = [_job(store, owner="ann")[0]["id"] for _ in range(5)]
    _job(store, owner="bob")
    _job(store, owner="ann", kind="detection")
    pages, after = [], None
    while page := store.list_jobs("ann", "removal", 2, after):
        pages.append([j["id"] for j in page])
        after = (page[-1]["created"], page[-1]["id"])
    assert [len(p) for p in pages] == [2, 2, 1]
    assert sum(pages, []) == mine[::-1]


def test_restart_cancels_a_job_that_was_cancelling(target):
    store = JobStore(target)
    job, _ = _job(store)
    store.claim_next(("removal",))
    store.cancel(job["id"])
    store.close()
    store = JobStore(target)
    assert store.recover(time.time() + LEASE_S + 1) == {"requeued": 0, "failed": 0}
    assert store.get(job["id"])["state"] == "canceled"


def test_only_finished_jobs_are_deleted_and_expiry_counts_from_the_finish(target):
    store = JobStore(target)
    done, _ = _job(store)
    active, _ = _job(store)
    store.claim_next(("removal",))
    store.finish(done["id"], "succeeded")
    finished = store.get(done["id"])["finished"]
    assert [j["id"] for j in store.expired(finished + 1)] == [done["id"]]
    assert store.expired(finished - 1) == []
    assert not store.delete(active["id"]) and store.get(active["id"]) is not None
    assert store.delete(done["id"]) and store.get(done["id"]) is None


def test_a_lease_renewed_by_its_worker_is_kept_and_a_stale_attempt_is_fenced_off(target):
    store = JobStore(target)
    job, _ = _job(store)
    first = store.claim_next(("removal",), lease_s=5)
    assert first["attempts"] == 1 and first["lease_until"] == pytest.approx(time.time() + 5, abs=1)
    assert not store.progress(job["id"], 10, attempt=1, lease_s=60)  # renewed: a restart leaves it running
    assert store.recover(time.time() + 30) == {"requeued": 0, "failed": 0}
    assert store.recover(time.time() + 61) == {"requeued": 1, "failed": 0}  # the worker went quiet
    second = store.claim_next(("removal",), lease_s=60)
    assert second["attempts"] == 2
    assert store.progress(job["id"], 99, attempt=1)  # the stale worker is told to stop
    assert store.get(job["id"])["frames_done"] == 10  # and its report changed nothing
    assert not store.finish(job["id"], "failed", reason="worker_error", attempt=1)
    assert store.finish(job["id"], "succeeded", attempt=2)
    assert store.get(job["id"])["state"] == "succeeded"


def test_a_request_racing_its_twin_is_replayed_never_refused(target):
    """Six requests with one key race (precheck, then admit, as the API does) while the owner has
    room for one batch only: every one is the batch or its replay, none a 429. Read apart, the key
    check and the room check let a twin's commit fall between them (about one in ten refused)."""
    store = JobStore(target)
    limits = Limits(max_active=100, max_active_per_owner=3)
    for round_ in range(40):
        owner, key, outcomes, start = f"o{round_}", f"o{round_}:batch:k", [], threading.Barrier(6)

        def one(t, owner=owner, key=key, outcomes=outcomes, start=start, round_=round_):
            start.wait()
            try:
                found = store.precheck("batches", key, "f", owner, 2, limits)
                if found is None:
                    specs = [_spec(id=f"job_{round_}_{t}_{k}") for k in range(2)]
                    found, _ = store.admit_batch(f"batch_{round_}_{t}", [], specs, owner, limits, key, "f")
                outcomes.append(found)
            except Refused as exc:
                outcomes.append(exc.reason)

        threads = [threading.Thread(target=one, args=(t,)) for t in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(set(outcomes)) == 1 and outcomes[0].startswith("batch_"), outcomes
    with pytest.raises(Refused, match="this owner has 2"):
        store.precheck("batches", "o0:batch:other", "f", "o0", 2, limits)
    with pytest.raises(Refused, match="different request"):
        store.precheck("batches", "o0:batch:k", "g", "o0", 2, limits)


def _process(target, start, results, n):
    """One process of the race below: its own store connection, released with the others."""
    store, out = JobStore(target), []
    limits = Limits(max_active=100, max_active_per_owner=3)
    start.wait()
    for i in range(4):  # room: three places for alice in all the processes together
        try:
            out.append(("room", _job(store, owner="alice", limits=limits)[0]["id"]))
        except Refused as exc:
            out.append(("room", exc.reason))
    job, created = _job(store, key="bob:removal:k", owner="bob")  # one key, every process at once
    out.append(("key", job["id"], created))
    start.wait()  # all admitted: now every process claims as a dispatcher would
    while claimed := store.claim_next(("removal",)):
        out.append(("claim", claimed["id"]))
    results.put((n, out))


def test_processes_racing_admit_once_per_place_and_key_and_claim_each_job_once(target):
    """Four processes, each with its own connection, admit and claim at the same moment: alice
    gets exactly her three places, the shared Idempotency-Key makes one job, and no job is
    claimed twice."""
    ctx = multiprocessing.get_context("spawn")
    start, results = ctx.Barrier(4, timeout=60), ctx.Queue()
    procs = [ctx.Process(target=_process, args=(target, start, results, n)) for n in range(4)]
    for p in procs:
        p.start()
    try:  # a process that died leaves the others at the barrier: they time out, the test fails
        outs = [results.get(timeout=90)[1] for _ in procs]
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
    assert [p.exitcode for p in procs] == [0] * 4
    events = [e for out in outs for e in out]
    room = [e[1] for e in events if e[0] == "room"]
    assert len([r for r in room if r.startswith("job_")]) == 3 and room.count("owner_queue_full") == 13
    keyed = [e for e in events if e[0] == "key"]
    assert len({e[1] for e in keyed}) == 1 and sum(e[2] for e in keyed) == 1
    claims = [e[1] for e in events if e[0] == "claim"]
    assert sorted(claims) == sorted({*[r for r in room if r.startswith("job_")], keyed[0][1]})
