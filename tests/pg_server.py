"""A real PostgreSQL server for the job-store tests: a throwaway cluster from Debian's package.

`pg_server` runs initdb and pg_ctl from /usr/lib/postgresql/*/bin (`make test` installs the
`postgresql` package through scripts/system-deps.sh) once per session, on a free loopback port
with its unix socket in the cluster's own folder, and stops it at the end. `pg_url` gives each
test a fresh database on it. Without the binaries the tests that need them are skipped, saying
so. PostgreSQL refuses to run as root, so as root the cluster runs as the package's `postgres`
user, in a folder under the temp directory that user can reach.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid

import pytest


def _bin_dir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def pg_server():
    """The base URL (no database) of a PostgreSQL server that lives for the session."""
    bin_dir = _bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries not found under /usr/lib/postgresql (Debian package 'postgresql')")
    root = tempfile.mkdtemp(prefix="g2w-pg-")
    prefix: list[str] = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(root, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    data, port = os.path.join(root, "data"), _free_port()

    def run(*args: str) -> None:
        done = subprocess.run([*prefix, *args], capture_output=True, text=True, timeout=120)
        if done.returncode:
            raise RuntimeError(f"{os.path.basename(args[0])} failed: {done.stdout}{done.stderr}")

    run(f"{bin_dir}/initdb", "-D", data, "-U", "g2w", "--auth=trust", "--no-sync", "-E", "UTF8")
    options = f"-c listen_addresses=127.0.0.1 -p {port} -k {root} -c fsync=off -c max_connections=200"
    run(f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"), "-o", options, "-w", "start")
    try:
        yield f"postgresql://g2w@127.0.0.1:{port}"
    finally:
        run(f"{bin_dir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server) -> str:
    """A postgresql:// URL of a new, empty database on the session's server."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{pg_server}/postgres", autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return f"{pg_server}/{name}"
