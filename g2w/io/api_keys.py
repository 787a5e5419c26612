"""API keys of the removal service: each key has an owner, and only its SHA-256 is stored.

Kept in the service's SQLite job store (`<state-dir>/jobs.sqlite`, table `api_keys`), so the
service and `g2w serve-keys` share one file. A key is shown once, when it is created; listing
shows ids, owners and dates, never the key. A revoked key stops working on the next request.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import time
import uuid

_SCHEMA = """CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, sha256 TEXT NOT NULL UNIQUE, created REAL NOT NULL,
    revoked REAL)"""
PREFIX = "g2wk_"


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _connect(path: str) -> sqlite3.Connection:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    db.execute(_SCHEMA)
    return db


def create_key(path: str, owner: str) -> dict:
    """A new key for `owner`: {"id", "owner", "key"}; the key itself is never stored."""
    if not owner or len(owner) > 100 or not owner.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise ValueError("owner: 1-100 letters, digits, '-', '_' or '.'")
    key, key_id = PREFIX + secrets.token_urlsafe(32), f"key_{uuid.uuid4().hex[:12]}"
    with _connect(path) as db:
        db.execute(
            "INSERT INTO api_keys (id, owner, sha256, created) VALUES (?, ?, ?, ?)",
            (key_id, owner, digest(key), time.time()),
        )
    return {"id": key_id, "owner": owner, "key": key}


def list_keys(path: str) -> list[dict]:
    with _connect(path) as db:
        rows = db.execute("SELECT id, owner, created, revoked FROM api_keys ORDER BY created").fetchall()
    return [{"id": i, "owner": o, "created": c, "revoked": r} for i, o, c, r in rows]


def revoke_key(path: str, key_id: str) -> bool:
    with _connect(path) as db:
        return bool(
            db.execute(
                "UPDATE api_keys SET revoked = ? WHERE id = ? AND revoked IS NULL", (time.time(), key_id)
            ).rowcount
        )


def owner_of(path: str, key: str) -> str | None:
    """The owner of a live key, or None."""
    with _connect(path) as db:
        row = db.execute("SELECT owner FROM api_keys WHERE sha256 = ? AND revoked IS NULL", (digest(key),)).fetchone()
    return row[0] if row else None
