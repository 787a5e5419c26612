"""Job records of the removal service, in SQLite (WAL mode) so accepted work survives a restart.

One row per job (a removal or an evaluation) and one per batch. State moves
queued -> running -> succeeded | failed | canceled; a claim is one conditional UPDATE, so two
dispatchers never run the same job. On start-up `recover()` puts jobs that were running when
the service stopped back in the queue (the removers write atomically, so rerunning one is a
resume), or fails them with a reason once they have been interrupted too often.
The file must be on a local disk of the ingress node: SQLite locking is not safe on NFS.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
import uuid

STATES = ("queued", "running", "succeeded", "failed", "canceled")
FINAL = ("succeeded", "failed", "canceled")
MAX_ATTEMPTS = 3  # a job interrupted by this many restarts is failed, not retried forever

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
_ADDED = (("jobs", "owner", "TEXT NOT NULL DEFAULT 'default'"), ("batches", "owner", "TEXT NOT NULL DEFAULT 'default'"))
_JSON_FIELDS = ("params", "errors", "result")


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


class JobStore:
    """Thread-safe access to the jobs database at `path`."""

    def __init__(self, path: str):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across process crashes
            self._db.executescript(_SCHEMA)
            for table, column, decl in _ADDED:
                if column not in {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}:
                    self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")

    def _row(self, row: sqlite3.Row | None) -> dict | None:
        if row is None:
            return None
        job = dict(row)
        for name in _JSON_FIELDS:
            job[name] = json.loads(job[name])
        return job

    def create(self, kind: str, method: str | None, params: dict, input_path: str | None, workdir: str,
               idempotency_key: str | None = None, batch_id: str | None = None, frames_total: int = 0,
               job_id: str | None = None, owner: str = "default") -> tuple[dict, bool]:
        """Insert a queued job; returns (job, created). An existing key returns its job unchanged."""
        now = time.time()
        job_id = job_id or new_id("job")
        with self._lock:
            if idempotency_key:
                found = self._db.execute("SELECT * FROM jobs WHERE idempotency_key = ?", (idempotency_key,)).fetchone()
                if found:
                    return self._row(found), False
            self._db.execute(
                "INSERT INTO jobs (id, kind, state, method, params, input, workdir, idempotency_key, batch_id,"
                " frames_total, created, updated, owner) VALUES (?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (job_id, kind, method, json.dumps(params), input_path, workdir, idempotency_key, batch_id,
                 frames_total, now, now, owner))
        return self.get(job_id), True

    def get(self, job_id: str) -> dict | None:
        with self._lock:
            return self._row(self._db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone())

    def by_key(self, idempotency_key: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM jobs WHERE idempotency_key = ?", (idempotency_key,)).fetchone()
            return self._row(row)

    def count_active(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running')").fetchone()[0]

    def claim_next(self, kinds: tuple[str, ...]) -> dict | None:
        """Move the oldest queued job of `kinds` to running and return it (None if none is queued)."""
        marks = ",".join("?" * len(kinds))
        with self._lock:
            while True:
                row = self._db.execute(
                    f"SELECT id FROM jobs WHERE state = 'queued' AND kind IN ({marks}) ORDER BY created LIMIT 1",
                    kinds).fetchone()
                if row is None:
                    return None
                claimed = self._db.execute(
                    "UPDATE jobs SET state = 'running', attempts = attempts + 1, updated = ? "
                    "WHERE id = ? AND state = 'queued'", (time.time(), row["id"])).rowcount
                if claimed:
                    return self._row(self._db.execute("SELECT * FROM jobs WHERE id = ?", (row["id"],)).fetchone())

    def finish(self, job_id: str, state: str, reason: str = "", message: str = "", result: dict | None = None,
               errors: list | None = None, frames_done: int | None = None) -> bool:
        """Record a running job's outcome; False if the job was canceled meanwhile (nothing changes)."""
        assert state in FINAL, state
        with self._lock:
            return bool(self._db.execute(
                "UPDATE jobs SET state = ?, reason = ?, message = ?, result = ?, errors = ?,"
                " frames_done = COALESCE(?, frames_done), updated = ? WHERE id = ? AND state = 'running'",
                (state, reason, message, json.dumps(result or {}), json.dumps(errors or []), frames_done,
                 time.time(), job_id)).rowcount)

    def progress(self, job_id: str, frames_done: int) -> bool:
        """Record a running job's frames done; True when the job is no longer running (canceled)."""
        with self._lock:
            self._db.execute("UPDATE jobs SET frames_done = ?, updated = ? WHERE id = ? AND state = 'running'",
                             (int(frames_done), time.time(), job_id))
            row = self._db.execute("SELECT state FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return row is None or row["state"] != "running"

    def stopped(self, job_id: str, frames_done: int) -> None:
        """Note on a job canceled while it ran where its method stopped."""
        with self._lock:
            self._db.execute(
                "UPDATE jobs SET message = 'the method stopped after ' || ? || ' of ' || frames_total || ' frames',"
                " updated = ? WHERE id = ? AND state = 'canceled'", (int(frames_done), time.time(), job_id))

    def cancel(self, job_id: str) -> dict | None:
        """Cancel a queued or running job; a finished job is returned unchanged."""
        with self._lock:
            self._db.execute(
                "UPDATE jobs SET state = 'canceled', reason = 'canceled_by_user', updated = ?"
                " WHERE id = ? AND state IN ('queued', 'running')", (time.time(), job_id))
        return self.get(job_id)

    def recover(self) -> dict:
        """After a restart: requeue interrupted jobs, or fail those interrupted MAX_ATTEMPTS times."""
        now = time.time()
        with self._lock:
            failed = self._db.execute(
                "UPDATE jobs SET state = 'failed', reason = 'interrupted',"
                " message = 'the service stopped while this job ran, ' || attempts || ' times', updated = ?"
                " WHERE state = 'running' AND attempts >= ?", (now, MAX_ATTEMPTS)).rowcount
            requeued = self._db.execute(
                "UPDATE jobs SET state = 'queued', updated = ? WHERE state = 'running'", (now,)).rowcount
        return {"requeued": requeued, "failed": failed}

    def batch_by_key(self, idempotency_key: str) -> dict | None:
        with self._lock:
            row = self._db.execute("SELECT id FROM batches WHERE idempotency_key = ?", (idempotency_key,)).fetchone()
        return None if row is None else self.batch(row["id"])

    def create_batch(self, batch_id: str, items: list[dict], idempotency_key: str | None = None,
                     owner: str = "default") -> None:
        """Record a batch whose jobs were created with `batch_id`."""
        with self._lock:
            self._db.execute("INSERT INTO batches (id, idempotency_key, items, created, owner) VALUES (?, ?, ?, ?, ?)",
                             (batch_id, idempotency_key, json.dumps(items), time.time(), owner))

    def _batch(self, batch_id: str) -> dict | None:
        row = self._db.execute("SELECT * FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return None if row is None else {"id": row["id"], "items": json.loads(row["items"]), "created": row["created"],
                                         "owner": row["owner"]}

    def batch(self, batch_id: str) -> dict | None:
        """The batch record with each item's job state and a count per state."""
        with self._lock:
            batch = self._batch(batch_id)
            if batch is None:
                return None
            states = dict(self._db.execute("SELECT id, state FROM jobs WHERE batch_id = ?", (batch_id,)).fetchall())
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
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self._db.execute("INSERT INTO sessions (sha256, owner, expires) VALUES (?, ?, ?)",
                             (hashlib.sha256(session_id.encode()).hexdigest(), owner, now + ttl_s))

    def session_owner(self, session_id: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT owner FROM sessions WHERE sha256 = ? AND expires >= ?",
                                   (hashlib.sha256(session_id.encode()).hexdigest(), time.time())).fetchone()
        return row["owner"] if row else None

    def end_session(self, session_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE sha256 = ?", (hashlib.sha256(session_id.encode()).hexdigest(),))

    def close(self) -> None:
        with self._lock:
            self._db.close()
