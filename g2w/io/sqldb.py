"""One SQL connection for the service's state: a SQLite file (the default) or a PostgreSQL server.

The job store (serve/store.py) and the API keys (g2w/io/api_keys.py) write their SQL once, in
SQLite's spelling with `?` placeholders; `Database` is the seam that runs it on either backend:
how to connect, how placeholders and column types are spelled, how a write transaction starts,
and how a column is added to an older schema.

A write transaction serialises every writer, on both backends, so a check and the write it
decides can never be split by another writer. SQLite does it with BEGIN IMMEDIATE (the file's
write lock). PostgreSQL does it with a transaction-scoped advisory lock taken first thing:
SELECT ... FOR UPDATE cannot lock rows that do not exist yet, so it cannot stop two admissions
from both counting the last free place and both inserting, and SERIALIZABLE would turn such a
race into serialization failures that every caller must retry. The store's writes are a few
short statements per job, so one writer at a time costs nothing measurable, and both backends
keep the same guarantees. A reader that needs one snapshot over several statements uses
REPEATABLE READ on PostgreSQL (a SQLite read transaction already is one snapshot).

A PostgreSQL connection that broke (the server restarted, a network blip) is opened again on
the next call, so a store error is one failed call, not a store that fails forever.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
_WRITE_LOCK_KEY = 0x6732772D  # the advisory lock every write transaction takes on PostgreSQL


def is_postgres(target: str) -> bool:
    return target.startswith(POSTGRES_SCHEMES)


class Database:
    """A thread-safe connection to `target`: a SQLite file path, or a postgresql:// URL."""

    def __init__(self, target: str):
        self.target = target
        self.postgres = is_postgres(target)
        self._lock = threading.RLock()
        self._conn: Any = None
        self._connect()

    def _connect(self) -> None:
        if self.postgres:
            import psycopg
            from psycopg.rows import dict_row

            # autocommit: each statement commits on its own unless a transaction below is begun,
            # as SQLite's isolation_level=None does.
            self._conn = psycopg.connect(self.target, autocommit=True, row_factory=dict_row)
        else:
            os.makedirs(os.path.dirname(os.path.abspath(self.target)), exist_ok=True)
            self._conn = sqlite3.connect(self.target, check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable across process crashes

    def _live(self) -> None:
        if self.postgres and (self._conn is None or self._conn.closed or self._conn.broken):
            self._connect()

    def sql(self, query: str) -> str:
        """`query` in this backend's spelling: placeholders, column types and functions."""
        if not self.postgres:
            return query
        query = re.sub(r"\bREAL\b", "DOUBLE PRECISION", query)  # PostgreSQL's REAL is 4 bytes: no epoch seconds
        query = re.sub(r"\bMAX\((?=[^()]*,)", "GREATEST(", query)  # SQLite's two-argument MAX
        return query.replace("%", "%%").replace("?", "%s")

    def execute(self, query: str, args: Sequence = ()) -> Any:
        """Run one statement (autocommitted outside a transaction); rows read by column name."""
        with self._lock:
            self._live()
            return self._conn.execute(self.sql(query), tuple(args))

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Database]:
        """One transaction: a write one holds the write lock from its first statement to its
        commit; a read one (write=False) sees one snapshot throughout."""
        with self._lock:
            self._live()
            if self.postgres:
                self._conn.execute("BEGIN" if write else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                if write:
                    self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (_WRITE_LOCK_KEY,))
            else:
                self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield self
            except BaseException:
                if not (self.postgres and self._conn.broken):
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def add_column(self, table: str, column: str, decl: str) -> None:
        """Add `column` to `table` unless it is there (a schema made by an older release)."""
        if self.postgres:
            self.execute(f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {decl}")
        elif column not in {r[1] for r in self.execute(f"PRAGMA table_info({table})")}:
            self.execute(f"ALTER TABLE {table} ADD COLUMN {column} {decl}")

    def script(self, statements: str) -> None:
        """Run `;`-separated DDL statements, in one write transaction (so two processes opening
        a new PostgreSQL database at once do not both create its tables)."""
        with self.transaction():
            for statement in statements.split(";"):
                if statement.strip():
                    self.execute(statement)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
