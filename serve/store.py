"""Job records of the removal service, in a database so accepted work survives a restart.

SQLite (WAL mode) in a file on the ingress node is the single-node default; with `store-url`
set to a postgresql:// URL the records live on that server instead, so the ingress can move to
another node (and a second ingress can share them) without losing a job. g2w/io/sqldb.py runs
the same SQL on both and says how each backend makes a write transaction exclusive.

One row per job (a removal, detection or evaluation) and one per batch. State moves
queued -> running -> succeeded | failed, and to canceled by a cancel: at once from queued, through
`cancelling` from running (the worker is told at its next progress report and its outputs are
discarded when it stops). Every check that decides a write happens in the write's own
transaction, which holds the write lock from its first read: admission (room left in all and
per owner, and the Idempotency-Key's payload) with the insert, and a claim with its update, so two requests never
both take the last place and two dispatchers never run the same job.

A claimed job holds a lease (`lease_until`) that its worker renews with every progress report
or heartbeat, for the attempt it runs (`attempts`). `recover()` requeues only jobs whose lease
has expired (their worker is gone), or fails them once they have been interrupted too often; a
job whose worker still reports stays with it, so a restarted ingress never hands it to a second
writer. A report or an outcome of an older attempt is refused, and tells its worker to stop.
A SQLite file must be on a local disk of the ingress node: SQLite locking is not safe on NFS.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import overload

from g2w.io.sqldb import Database

STATES = ("queued", "running", "cancelling", "succeeded", "failed", "canceled")
FINAL = ("succeeded", "failed", "canceled")
MAX_ATTEMPTS = 3  # a job interrupted by this many restarts is failed, not retried forever
LEASE_S = 30.0  # how long a claim lasts without a report from its worker

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, state TEXT NOT NULL, method TEXT,
    params TEXT NOT NULL, input TEXT, workdir TEXT NOT NULL, idempotency_key TEXT UNIQUE,
    batch_id TEXT, frames_total INTEGER DEFAULT 0, frames_done INTEGER DEFAULT 0,
    reason TEXT DEFAULT '', message TEXT DEFAULT '', errors TEXT DEFAULT '[]', result TEXT DEFAULT '{}',
    attempts INTEGER DEFAULT 0, created REAL NOT NULL, updated REAL NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, created);
CREATE TABLE IF NOT EXISTS batches (
    id TEXT PRIMARY KEY, idempotency_key TEXT UNIQUE, items TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (sha256 TEXT PRIMARY KEY, owner TEXT NOT NULL, expires REAL NOT NULL);
"""
# Columns added after the first release: (table, column, declaration); added to an older file on open.
_ADDED = (
    ("jobs", "owner", "TEXT NOT NULL DEFAULT 'default'"),
    ("batches", "owner", "TEXT NOT NULL DEFAULT 'default'"),
    ("jobs", "fingerprint", "TEXT"),
    ("batches", "fingerprint", "TEXT"),
    ("jobs", "started", "REAL"),
    ("jobs", "finished", "REAL"),
    ("jobs", "lease_until", "REAL"),
)
_INDEXES = (
    "CREATE INDEX IF NOT EXISTS jobs_owner ON jobs(owner, kind, created)",
    "CREATE INDEX IF NOT EXISTS batches_owner ON batches(owner, created)",
)
_JSON_FIELDS = ("params", "errors", "result")
ACTIVE = ("queued", "running", "cancelling")  # jobs that hold a place in the queue
BUSY = ("running", "cancelling")  # jobs a worker is still on


class Refused(Exception):
    """Admission refused: `reason` is queue_full, owner_queue_full or idempotency_key_reused."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


@dataclass(frozen=True)
class Limits:
    """Admission limits: jobs queued or running, in all and per owner."""

    max_active: int
    max_active_per_owner: int


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class JobStore:
    """Thread-safe access to the jobs database at `target`: a SQLite file path, or a
    postgresql:// URL (g2w/io/sqldb.py runs the same SQL on both)."""

    def __init__(self, target: str):
        self._db = Database(target)
        self._db.script(_SCHEMA)
        for table, column, decl in _ADDED:
            self._db.add_column(table, column, decl)
        self._db.script(";".join(_INDEXES))

    def _transaction(self):
        """One write transaction, its write lock taken before the first read: what it checks
        cannot change before it commits, in this process or any other on the database."""
        return self._db.transaction()

    @overload
    def _row(self, row: Mapping) -> dict: ...
    @overload
    def _row(self, row: None) -> None: ...
    @overload
    def _row(self, row: Mapping | None) -> dict | None: ...
    def _row(self, row: Mapping | None) -> dict | None:
        if row is None:
            return None
        job = dict(row)
        for name in _JSON_FIELDS:
            job[name] = json.loads(job[name])
        return job

    def admit(
        self, spec: dict, owner: str, limits: Limits, idempotency_key: str | None = None, fingerprint: str | None = None
    ) -> tuple[dict, bool]:
        """Queue one job, in one transaction with its checks; returns (job, created).

        `spec` has kind, method, params, input, workdir and optionally id, batch_id, frames_total.
        A key already used by this payload returns its job (created False); by another payload,
        or with no room left, it raises Refused and nothing is written.
        """
        with self._transaction() as db:
            if idempotency_key and (found := self._replay(db, "jobs", idempotency_key, fingerprint)):
                return self._row(db.execute("SELECT * FROM jobs WHERE id = ?", (found,)).fetchone()), False
            self._check_room(db, owner, 1, limits)
            job_id = self._insert(db, spec, owner, idempotency_key, fingerprint)
            return self._row(db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()), True

    def admit_batch(
        self,
        batch_id: str,
        items: list[dict],
        specs: list[dict],
        owner: str,
        limits: Limits,
        idempotency_key: str | None = None,
        fingerprint: str | None = None,
    ) -> tuple[str, bool]:
        """Record a batch and queue its jobs (`specs`, each with its id and `batch_id`), all or
        nothing in one transaction; returns (batch id, created) like `admit`."""
        with self._transaction() as db:
            if idempotency_key and (found := self._replay(db, "batches", idempotency_key, fingerprint)):
                return found, False
            self._check_room(db, owner, len(specs), limits)
            for spec in specs:
                self._insert(db, {**spec, "batch_id": batch_id}, owner)
            db.execute(
                "INSERT INTO batches (id, idempotency_key, items, created, owner, fingerprint)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (batch_id, idempotency_key, json.dumps(items), time.time(), owner, fingerprint),
            )
            return batch_id, True

    def replay(self, table: str, idempotency_key: str, fingerprint: str | None) -> str | None:
        """The id that `idempotency_key` made in `table` ("jobs" or "batches"), if any; Refused if
        it was made by another payload."""
        return self._replay(self._db, table, idempotency_key, fingerprint)

    def precheck(
        self, table: str, idempotency_key: str | None, fingerprint: str | None, owner: str, adding: int, limits: Limits
    ) -> str | None:
        """Before the work of validating a request: the id its key already made (a replay), else
        Refused when `adding` more jobs would pass a limit; `admit` checks both again when it writes.

        Both are read in one snapshot, key first. Read apart, a request racing a twin with its
        key could miss the twin's job at the key check and then count it at the room check,
        answering 429 for what is a replay."""
        with self._db.transaction(write=False) as db:
            found = self._replay(db, table, idempotency_key, fingerprint) if idempotency_key else None
            if found is None:
                self._check_room(db, owner, adding, limits)
            return found

    @staticmethod
    def _replay(db, table: str, idempotency_key: str, fingerprint: str | None) -> str | None:
        assert table in ("jobs", "batches")
        row = db.execute(
            f"SELECT id, fingerprint FROM {table} WHERE idempotency_key = ?", (idempotency_key,)
        ).fetchone()
        if row is not None and row["fingerprint"] != fingerprint:
            raise Refused("idempotency_key_reused", "this Idempotency-Key was used for a different request")
        return None if row is None else row["id"]

    @staticmethod
    def _check_room(db, owner: str, adding: int, limits: Limits) -> None:
        marks = ",".join("?" * len(ACTIVE))
        row = db.execute(
            "SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN owner = ? THEN 1 ELSE 0 END), 0) AS mine"
            f" FROM jobs WHERE state IN ({marks})",
            (owner, *ACTIVE),
        ).fetchone()
        total, mine = int(row["total"]), int(row["mine"])
        if total + adding > limits.max_active:
            raise Refused("queue_full", f"{limits.max_active} jobs are queued or running; retry later")
        if mine + adding > limits.max_active_per_owner:
            raise Refused(
                "owner_queue_full",
                f"this owner has {mine} jobs queued or running, the limit is {limits.max_active_per_owner}",
            )

    @staticmethod
    def _insert(db, spec: dict, owner: str, idempotency_key: str | None = None, fingerprint: str | None = None) -> str:
        now, job_id = time.time(), spec.get("id") or new_id("job")
        db.execute(
            "INSERT INTO jobs (id, kind, state, method, params, input, workdir, idempotency_key, batch_id,"
            " frames_total, created, updated, owner, fingerprint)"
            " VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                job_id,
                spec["kind"],
                spec.get("method"),
                json.dumps(spec["params"]),
                spec.get("input"),
                spec["workdir"],
                idempotency_key,
                spec.get("batch_id"),
                int(spec.get("frames_total", 0)),
                now,
                now,
                owner,
                fingerprint,
            ),
        )
        return job_id

    def get(self, job_id: str) -> dict | None:
        return self._row(self._db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone())

    def claim_next(
        self,
        kinds: tuple[str, ...],
        max_running_per_owner: int | None = None,
        lease_s: float = LEASE_S,
        methods: tuple[str, ...] | None = None,
        other_methods: bool = False,
    ) -> dict | None:
        """Move the oldest queued job of `kinds` to running, with a lease of `lease_s`, and return it
        (None if none is queued). With `max_running_per_owner`, an owner with that many jobs running
        is passed over, so one owner's backlog cannot hold every slot. With `methods`, only jobs of
        those methods are taken, or with `other_methods` only jobs of any other method (the
        dispatcher's GPU and CPU removal lanes)."""
        marks = ",".join("?" * len(kinds))
        fair, args = "", tuple[str | int, ...](kinds)
        if methods is not None:
            fair += f" AND COALESCE(method, '') {'NOT IN' if other_methods else 'IN'} ({','.join('?' * (len(methods) or 1))})"
            args += tuple(methods) or ("",)
        if max_running_per_owner is not None:
            fair += (
                " AND (SELECT COUNT(*) FROM jobs r WHERE r.owner = j.owner"
                " AND r.state IN ('running', 'cancelling')) < ?"
            )
            args += (int(max_running_per_owner),)
        with self._transaction() as db:
            row = db.execute(
                f"SELECT id FROM jobs j WHERE state = 'queued' AND kind IN ({marks}){fair} ORDER BY created LIMIT 1",
                args,
            ).fetchone()
            if row is None:
                return None
            now = time.time()
            db.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, started = ?, lease_until = ?,"
                " updated = ? WHERE id = ?",
                (now, now + lease_s, now, row["id"]),
            )
            return self._row(db.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone())

    def finish(
        self,
        job_id: str,
        state: str,
        reason: str = "",
        message: str = "",
        result: dict | None = None,
        errors: list | None = None,
        frames_done: int | None = None,
        attempt: int | None = None,
    ) -> bool:
        """Record a running job's outcome; False if the job was canceled meanwhile, or (with
        `attempt`) is no longer on that attempt (nothing changes)."""
        assert state in FINAL, state
        now = time.time()
        with self._transaction() as db:
            return bool(
                db.execute(
                    "UPDATE jobs SET state = ?, reason = ?, message = ?, result = ?, errors = ?,"
                    " frames_done = COALESCE(?, frames_done), finished = ?, updated = ?"
                    " WHERE id = ? AND state = 'running' AND attempts = COALESCE(?, attempts)",
                    (
                        state,
                        reason,
                        message,
                        json.dumps(result or {}),
                        json.dumps(errors or []),
                        frames_done,
                        now,
                        now,
                        job_id,
                        attempt,
                    ),
                ).rowcount
            )

    def progress(self, job_id: str, frames_done: int, attempt: int | None = None, lease_s: float = LEASE_S) -> bool:
        """Record a running job's frames done and renew its lease; True when its worker must stop:
        the job is no longer running (canceled), or (with `attempt`) runs another attempt now."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "UPDATE jobs SET frames_done = MAX(frames_done, ?), lease_until = ?, updated = ?"
                " WHERE id = ? AND state IN ('running', 'cancelling') AND attempts = COALESCE(?, attempts)",
                (int(frames_done), now + lease_s, now, job_id, attempt),
            )
            row = db.execute("SELECT state, attempts FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row is None or row["state"] != "running" or (attempt is not None and row["attempts"] != attempt)

    def renew(self, attempts: dict[str, int], lease_s: float = LEASE_S) -> set[str]:
        """Renew the leases of jobs the dispatcher has in flight (id -> attempt), in one transaction:
        a call waiting in Serve's queue for a free replica has no worker reporting for it yet.
        Returns the ids no longer running that attempt (canceled, finished, or taken over)."""
        now, kept = time.time(), set()
        with self._transaction() as db:
            for job_id, attempt in attempts.items():
                if db.execute(
                    "UPDATE jobs SET lease_until = ? WHERE id = ? AND attempts = ? AND state IN ('running', 'cancelling')",
                    (now + lease_s, job_id, int(attempt)),
                ).rowcount:
                    kept.add(job_id)
        return set(attempts) - kept

    def stopped(self, job_id: str, frames_done: int | None) -> None:
        """A cancelling job whose worker has stopped (its outputs discarded) becomes canceled, with
        where its method stopped (None: the worker finished the clip before it heard the cancel)."""
        now = time.time()
        message = (
            "'canceled while it ran; its outputs were discarded'"
            if frames_done is None
            else "'the method stopped after ' || ? || ' of ' || CAST(frames_total AS TEXT) || ' frames'"
        )
        args = () if frames_done is None else (str(int(frames_done)),)
        with self._transaction() as db:
            db.execute(
                f"UPDATE jobs SET state = 'canceled', message = {message}, finished = ?, updated = ?"
                " WHERE id = ? AND state = 'cancelling'",
                (*args, now, now, job_id),
            )

    def cancel(self, job_id: str) -> dict | None:
        """Cancel a job: a queued one is canceled at once, a running one is `cancelling` until its
        worker stops; a finished job is returned unchanged."""
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "UPDATE jobs SET state = 'canceled', reason = 'canceled_by_user', finished = ?, updated = ?"
                " WHERE id = ? AND state = 'queued'",
                (now, now, job_id),
            )
            db.execute(
                "UPDATE jobs SET state = 'cancelling', reason = 'canceled_by_user', updated = ?"
                " WHERE id = ? AND state = 'running'",
                (now, job_id),
            )
        return self.get(job_id)

    def delete(self, job_id: str) -> bool:
        """Drop a finished job's record (its files are the caller's to remove first); False if it
        is not finished or not there."""
        marks = ",".join("?" * len(FINAL))
        with self._transaction() as db:
            return bool(db.execute(f"DELETE FROM jobs WHERE id = ? AND state IN ({marks})", (job_id, *FINAL)).rowcount)

    def expired(self, cutoff: float, limit: int = 100) -> list[dict]:
        """Finished jobs that finished before `cutoff`, oldest first (at most `limit`)."""
        marks = ",".join("?" * len(FINAL))
        rows = self._db.execute(
            f"SELECT * FROM jobs WHERE state IN ({marks}) AND COALESCE(finished, updated) < ?"
            " ORDER BY COALESCE(finished, updated) LIMIT ?",
            (*FINAL, cutoff, int(limit)),
        )
        return [self._row(r) for r in rows.fetchall()]

    def drop_empty_batches(self, cutoff: float) -> int:
        """Delete batches made before `cutoff` none of whose jobs is left."""
        with self._transaction() as db:
            return db.execute(
                "DELETE FROM batches WHERE created < ? AND NOT EXISTS"
                " (SELECT 1 FROM jobs WHERE jobs.batch_id = batches.id)",
                (cutoff,),
            ).rowcount

    def list_jobs(self, owner: str, kind: str, limit: int, after: tuple[float, str] | None = None) -> list[dict]:
        """The owner's jobs of `kind`, newest first: at most `limit`, those older than `after`
        ((created, id) of the last one of the previous page) when given."""
        where, args = "owner = ? AND kind = ?", list[str | float]([owner, kind])
        if after is not None:
            where += " AND (created < ? OR (created = ? AND id < ?))"
            args += [after[0], after[0], after[1]]
        rows = self._db.execute(
            f"SELECT * FROM jobs WHERE {where} ORDER BY created DESC, id DESC LIMIT ?", (*args, int(limit))
        ).fetchall()
        return [self._row(r) for r in rows]

    def list_batches(self, owner: str, limit: int, after: tuple[float, str] | None = None) -> list[tuple[float, str]]:
        """(created, id) of the owner's batches, newest first, paged like `list_jobs`."""
        where, args = "owner = ?", list[str | float]([owner])
        if after is not None:
            where += " AND (created < ? OR (created = ? AND id < ?))"
            args += [after[0], after[0], after[1]]
        rows = self._db.execute(
            f"SELECT created, id FROM batches WHERE {where} ORDER BY created DESC, id DESC LIMIT ?",
            (*args, int(limit)),
        ).fetchall()
        return [(r["created"], r["id"]) for r in rows]

    def recover(self, now: float | None = None) -> dict:
        """Jobs whose lease expired before `now` (their worker is gone): requeue them, or fail those
        interrupted MAX_ATTEMPTS times; a cancelling one becomes canceled. Jobs whose worker still
        renews its lease are left to it."""
        now = time.time() if now is None else now
        lost = "COALESCE(lease_until, 0) < ?"
        with self._transaction() as db:
            failed = db.execute(
                "UPDATE jobs SET state = 'failed', reason = 'interrupted', finished = ?,"
                " message = 'the worker was lost while this job ran, ' || CAST(attempts AS TEXT) || ' times', updated = ?"
                f" WHERE state = 'running' AND attempts >= ? AND {lost}",
                (now, now, MAX_ATTEMPTS, now),
            ).rowcount
            requeued = db.execute(
                f"UPDATE jobs SET state = 'queued', updated = ? WHERE state = 'running' AND {lost}", (now, now)
            ).rowcount
            db.execute(
                "UPDATE jobs SET state = 'canceled', message = 'the worker was lost while it was canceled',"
                f" finished = ?, updated = ? WHERE state = 'cancelling' AND {lost}",
                (now, now, now),
            )
        return {"requeued": requeued, "failed": failed}

    def _batch(self, batch_id: str) -> dict | None:
        row = self._db.execute("SELECT * FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return (
            None
            if row is None
            else {"id": row["id"], "items": json.loads(row["items"]), "created": row["created"], "owner": row["owner"]}
        )

    def batch(self, batch_id: str) -> dict | None:
        """The batch record with each item's job state and a count per state."""
        with self._db.transaction(write=False) as db:
            batch = self._batch(batch_id)
            if batch is None:
                return None
            rows = db.execute("SELECT id, state FROM jobs WHERE batch_id = ?", (batch_id,)).fetchall()
        states = {r["id"]: r["state"] for r in rows}
        for item in batch["items"]:
            if item.get("job_id"):
                item["state"] = states.get(item["job_id"], "unknown")
        counts: dict[str, int] = {}
        for item in batch["items"]:
            counts[item["state"]] = counts.get(item["state"], 0) + 1
        return {**batch, "counts": counts, "done": all(i["state"] in FINAL + ("rejected",) for i in batch["items"])}

    def create_session(self, session_id: str, owner: str, ttl_s: float) -> None:
        """A page session: only the id's digest is stored; expired ones are dropped on the way."""
        now = time.time()
        with self._transaction() as db:
            db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            db.execute(
                "INSERT INTO sessions (sha256, owner, expires) VALUES (?, ?, ?)",
                (hashlib.sha256(session_id.encode()).hexdigest(), owner, now + ttl_s),
            )

    def session_owner(self, session_id: str) -> str | None:
        row = self._db.execute(
            "SELECT owner FROM sessions WHERE sha256 = ? AND expires >= ?",
            (hashlib.sha256(session_id.encode()).hexdigest(), time.time()),
        ).fetchone()
        return row["owner"] if row else None

    def end_session(self, session_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM sessions WHERE sha256 = ?", (hashlib.sha256(session_id.encode()).hexdigest(),))

    def close(self) -> None:
        self._db.close()
