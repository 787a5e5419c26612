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
    names = ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
             "metrics-export-port", "runtime-env-agent-port")
    low = 20000 + secrets.randbelow(40) * 1000  # a worker-port range of our own
    return [f"--{n}={p}" for n, p in zip(names, free_ports(len(names)))] + \
        [f"--min-worker-port={low}", f"--max-worker-port={low + 300}"]


class LocalCluster:
    """A head (with a dashboard, for `ray job submit`) and any extra raylets, all this test's."""

    def __init__(self, head_args: list[str], extra_env: dict | None = None, gcs_port: int | None = None):
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
                    "PYTHONPATH": ROOT, "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
                    **(extra_env or {})}
        self.env.pop("RAY_ADDRESS", None)
        self.temp = tempfile.mkdtemp(prefix="g2wr", dir="/tmp")  # short: socket paths have a length limit
        dashboard, client, self.gcs = free_ports(3)
        self.gcs = gcs_port or self.gcs
        self.address = f"127.0.0.1:{self.gcs}"
        self.dashboard = f"http://127.0.0.1:{dashboard}"
        self.procs: list[subprocess.Popen] = []
        self.raylets: list[tuple[subprocess.Popen, list[str]]] = []  # (process, its arguments), for restarts
        self._start(["--head", f"--port={self.gcs}", "--include-dashboard=true", "--dashboard-host=127.0.0.1",
                     f"--dashboard-port={dashboard}", f"--ray-client-server-port={client}", f"--temp-dir={self.temp}",
                     *head_args])

    def _start(self, args: list[str]) -> subprocess.Popen:
        cmd = [RAY, "start", "--block", "--disable-usage-stats", *node_port_args(), *args]
        proc = subprocess.Popen(cmd, env=self.env, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.procs.append(proc)
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
        """Polls `ray status`; a raylet whose `ray start` gave up is started again."""
        end = time.monotonic() + timeout_s
        while text not in self.status():
            if time.monotonic() > end:
                raise TimeoutError(f"the test cluster never showed {text!r}:\n{self.status()}")
            self._restart_exited_raylets()
            time.sleep(2)

    def _restart_exited_raylets(self) -> None:
        for i, (proc, args) in enumerate(self.raylets):
            if proc.poll() is not None:
                self.raylets[i] = (self._start([f"--address={self.address}", *args]), args)

    def stop(self) -> None:
        for p in reversed(self.procs):  # --block stops the processes it started when signalled
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:  # a raylet that gave up and was replaced
                pass
        for p in reversed(self.procs):
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
