"""API keys of the removal service: each key has an owner, and only its SHA-256 is stored.

Kept in the service's job store (table `api_keys`): the SQLite file `<state-dir>/jobs.sqlite`, or
the PostgreSQL database of `store-url` (g2w/io/sqldb.py), so the service and `g2w serve-keys`
share one store. A key is shown once, when it is created; listing
shows ids, owners and dates, never the key. A revoked key stops working on the next request.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from g2w.io.sqldb import Database, is_postgres

_SCHEMA = """CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, sha256 TEXT NOT NULL UNIQUE, created REAL NOT NULL,
    revoked REAL)"""
PREFIX = "g2wk_"


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


_SERVERS: dict[str, Database] = {}  # one connection per PostgreSQL store, kept: a key is checked per request
_SERVERS_LOCK = threading.Lock()


@contextmanager
def _connect(target: str) -> Iterator[Database]:
    """The store at `target` (a SQLite path, opened per call as before, or a postgresql:// URL)."""
    if is_postgres(target):
        with _SERVERS_LOCK:
            if target not in _SERVERS:
                _SERVERS[target] = Database(target)
                _SERVERS[target].script(_SCHEMA)
        yield _SERVERS[target]
        return
    db = Database(target)
    try:
        db.execute(_SCHEMA)
        yield db
    finally:
        db.close()


def create_key(target: str, owner: str) -> dict:
    """A new key for `owner`: {"id", "owner", "key"}; the key itself is never stored."""
    if not owner or len(owner) > 100 or not owner.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise ValueError("owner: 1-100 letters, digits, '-', '_' or '.'")
    key, key_id = PREFIX + secrets.token_urlsafe(32), f"key_{uuid.uuid4().hex[:12]}"
    with _connect(target) as db:
        db.execute(
            "INSERT INTO api_keys (id, owner, sha256, created) VALUES (?, ?, ?, ?)",
            (key_id, owner, digest(key), time.time()),
        )
    return {"id": key_id, "owner": owner, "key": key}


def list_keys(target: str) -> list[dict]:
    with _connect(target) as db:
        rows = db.execute("SELECT id, owner, created, revoked FROM api_keys ORDER BY created").fetchall()
    return [{k: r[k] for k in ("id", "owner", "created", "revoked")} for r in rows]


def revoke_key(target: str, key_id: str) -> bool:
    with _connect(target) as db:
        return bool(
            db.execute(
                "UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL", (time.time(), key_id)
            ).rowcount
        )


def owner_of(target: str, key: str) -> str | None:
    """The owner of a live key, or None."""
    with _connect(target) as db:
        row = db.execute("SELECT owner FROM api_keys WHERE sha256 = ? AND revoked IS NULL", (digest(key),)).fetchone()
    return row["owner"] if row else None
