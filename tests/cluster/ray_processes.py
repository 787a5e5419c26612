"""Ray clusters of a test's own on this machine: `ray start --block` processes in their own
session, on free ports, under a temp dir of their own, with token auth.

Stopping signals those sessions and then any process still naming the cluster's temp dir (the
fake nodes an autoscaler starts), never `ray stop`, which would stop every Ray on the machine,
other sessions' included.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RAY = os.path.join(os.path.dirname(sys.executable), "ray")


def free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def node_port_args() -> list[str]:
    """Every port a raylet opens, free ones, so nothing collides with other Ray instances here."""
    names = (
        "node-manager-port",
        "object-manager-port",
        "dashboard-agent-listen-port",
        "dashboard-agent-grpc-port",
        "metrics-export-port",
        "runtime-env-agent-port",
    )
    low = 20000 + secrets.randbelow(40) * 1000  # a worker-port range of our own
    return [f"--{n}={p}" for n, p in zip(names, free_ports(len(names)))] + [
        f"--min-worker-port={low}",
        f"--max-worker-port={low + 300}",
    ]


class LocalCluster:
    """A head (with a dashboard, for `ray job submit`) and any extra raylets, all this test's."""

    def __init__(self, head_args: list[str], extra_env: dict | None = None, gcs_port: int | None = None):
        self.env = {
            **os.environ,
            "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN": secrets.token_hex(16),
            "PYTHONPATH": ROOT,
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
            **(extra_env or {}),
        }
        self.env.pop("RAY_ADDRESS", None)
        self.temp = tempfile.mkdtemp(prefix="g2wr", dir="/tmp")  # short: socket paths have a length limit
        self.head_args, self.gcs_port = head_args, gcs_port
        self.procs: list[tuple[subprocess.Popen, str]] = []  # every `ray start` and its output's file
        self.raylets: list[tuple[subprocess.Popen, list[str]]] = []  # (process, its arguments), for restarts
        self.head = self._start_head()

    def _start_head(self) -> subprocess.Popen:
        """The head on free ports (the GCS on the caller's, when given): a restarted head takes new
        ones, in case another process took them."""
        dashboard, client, gcs = free_ports(3)
        self.gcs = self.gcs_port or gcs
        self.address = f"127.0.0.1:{self.gcs}"
        self.dashboard = f"http://127.0.0.1:{dashboard}"
        return self._start(
            [
                "--head",
                f"--port={self.gcs}",
                "--include-dashboard=true",
                "--dashboard-host=127.0.0.1",
                f"--dashboard-port={dashboard}",
                f"--ray-client-server-port={client}",
                f"--temp-dir={self.temp}",
                *self.head_args,
            ]
        )

    def _start(self, args: list[str]) -> subprocess.Popen:
        cmd = [RAY, "start", "--block", "--disable-usage-stats", *node_port_args(), *args]
        log = os.path.join(self.temp, f"ray-start-{len(self.procs)}.log")
        with open(log, "wb") as out:
            proc = subprocess.Popen(cmd, env=self.env, start_new_session=True, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append((proc, log))
        return proc

    def add_raylet(self, args: list[str]) -> None:
        """Joins once the head's GCS answers: `ray start --address` gives up after a while when it
        does not, which a loaded CI machine can take longer than (seen in CI: the second raylet
        never joined)."""
        self.wait_for("Node status", timeout_s=300)
        self.raylets.append((self._start([f"--address={self.address}", *args]), args))

    def status(self) -> str:
        out = subprocess.run([RAY, "status", f"--address={self.address}"], env=self.env, capture_output=True, text=True)
        return out.stdout if out.returncode == 0 else ""

    def wait_for(self, text: str, timeout_s: float = 120) -> None:
        """Polls `ray status`; a head or raylet whose `ray start` exited is started again (seen in
        CI: the head's `ray start` gave up before its GCS answered)."""
        end = time.monotonic() + timeout_s
        while text not in self.status():
            if time.monotonic() > end:
                raise TimeoutError(f"the test cluster never showed {text!r}:\n{self.status()}\n{self._exited_output()}")
            self._restart_exited()
            time.sleep(2)

    def _restart_exited(self) -> None:
        if self.head.poll() is not None:
            self.head = self._start_head()
        for i, (proc, args) in enumerate(self.raylets):
            if proc.poll() is not None:
                self.raylets[i] = (self._start([f"--address={self.address}", *args]), args)

    def _exited_output(self) -> str:
        """The end of what each `ray start` that exited printed, for the failure message."""
        parts = []
        for proc, log in self.procs:
            if proc.poll() is not None:
                with open(log, errors="replace") as f:
                    parts.append(f"--- {os.path.basename(log)} (exit {proc.returncode}):\n{f.read()[-2000:]}")
        return "\n".join(parts)

    def stop(self) -> None:
        procs = [p for p, _ in reversed(self.procs)]
        for p in procs:  # --block stops the processes it started when signalled
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:  # a raylet or head that gave up and was replaced
                pass
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        for pid in _pids_naming(self.temp):  # fake nodes started by this cluster's autoscaler
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _pids_naming(text: str) -> list[int]:
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if text.encode() in f.read():
                    pids.append(int(pid))
        except OSError:
            continue
    return pids
