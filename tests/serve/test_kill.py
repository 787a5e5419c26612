"""Kill -9 of a real replica in the middle of a real removal, over loopback HTTP.

The service runs with dispatching on and a short lease, one CPU Remover. A long `propagate`
removal is submitted; once its worker has reported frames, one replica process (found by the
title Ray gives it, `ray::ServeReplica:<app>:<deployment>`) is killed with SIGKILL. Serve
restarts the replica; the job must end `succeeded` with exactly one complete edit (decodable,
every frame, no attempt folder or partial file left), or `failed` with `worker_error` and no
edit at all. The service must then take and finish new work.
"""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest
import requests

from g2w.video import FrameReader, VideoWriter
from serve.local import APP, Service
from tests.conftest import numbered_frame

TOKEN = "kill-token-0123456789"
FRAMES, SIZE = 600, (640, 384)  # several seconds of propagate after the first report
LEASE_S = 4.0

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def clips(tmp_path_factory):
    root = tmp_path_factory.mktemp("kill_inputs")
    out = {}
    for name, frames, (w, h) in (("long", FRAMES, SIZE), ("short", 12, (160, 96))):
        out[name] = str(root / f"{name}.mp4")
        with VideoWriter(out[name], w, h, 30) as writer:
            for i in range(frames):
                writer.write(numbered_frame(i, w, h))
    out["root"] = str(root)
    return out


@pytest.fixture(scope="module")
def service(ray_local, clips, tmp_path_factory):
    svc = Service(
        TOKEN,
        {
            "data-dir": str(tmp_path_factory.mktemp("kill_data")),
            "allowed-roots": clips["root"],
            "lease-s": str(LEASE_S),
            "cpu-replicas": "1",
            "dispatch": "true",
        },
    ).start()
    yield svc
    svc.stop()


def replica_pids(deployment: str) -> list[int]:
    """PIDs of this app's live replicas of `deployment`, by the process title Ray sets; only among
    this test's own descendants (the local Ray's raylet starts them), never another Ray's."""
    title = f"ray::ServeReplica:{APP}:{deployment}"
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if " ".join(proc.cmdline()).startswith(title) and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except psutil.NoSuchProcess:
            continue
    return found


def _get(svc, job_id: str):
    """The job, or None while the ingress is down or restarting."""
    try:
        resp = requests.get(f"{svc.url}/v1/removals/{job_id}", headers=svc.headers, timeout=10)
    except requests.RequestException:
        return None
    return resp.json() if resp.status_code == 200 else None


def _wait(svc, job_id: str, until, timeout_s: float) -> dict:
    deadline, job = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        job = _get(svc, job_id) or job
        if job is not None and until(job):
            return job
        time.sleep(0.2)
    raise AssertionError(f"{job_id}: {job}")


def _submit(svc, path: str, method: str) -> str:
    deadline = time.monotonic() + 60
    while True:  # the proxy answers 503 while the ingress replica is being replaced
        try:
            resp = requests.post(
                f"{svc.url}/v1/removals", data={"uri": path, "method": method}, headers=svc.headers, timeout=30
            )
            if resp.status_code == 202:
                return resp.json()["id"]
        except requests.RequestException:
            resp = None
        assert time.monotonic() < deadline, resp.text if resp is not None else "no answer"
        time.sleep(0.5)


def _kill_mid_removal(svc, clips, deployment: str) -> dict:
    job_id = _submit(svc, clips["long"], "propagate")
    running = _wait(svc, job_id, lambda j: j["state"] == "running" and j["progress"]["frames_done"] > 0, 120)
    assert running["progress"]["frames_done"] < FRAMES, "finished before the kill: the clip is too short"
    pids = replica_pids(deployment)
    assert len(pids) == 1, (deployment, pids)
    os.kill(pids[0], signal.SIGKILL)
    psutil.Process(pids[0]).wait(timeout=10) if psutil.pid_exists(pids[0]) else None
    done = _wait(svc, job_id, lambda j: j["state"] in ("succeeded", "failed", "canceled"), 150)
    new = replica_pids(deployment)
    deadline = time.monotonic() + 60
    while not new:  # Serve replaces the dead replica
        assert time.monotonic() < deadline, f"{deployment} was not restarted"
        time.sleep(0.5)
        new = replica_pids(deployment)
    assert pids[0] not in new
    return done


def _assert_one_complete_output(svc, job: dict) -> None:
    workdir = os.path.join(svc.args["data-dir"], "jobs", job["id"])
    leftovers = [n for n in os.listdir(workdir) if n.startswith("attempt-") or "partial" in n]
    assert leftovers == [], leftovers  # no attempt's scratch survives the job
    edits = [n for n in os.listdir(workdir) if n.endswith(".mp4") and n != "source.mp4"]
    if job["state"] == "failed":
        assert job["reason"] == "worker_error", job
        assert edits == [] and job["results"] == {}, (edits, job)
        return
    assert job["state"] == "succeeded", job
    assert edits == ["edited.mp4"] and list(job["results"]) == ["edited.mp4"]
    served = requests.get(svc.url + job["results"]["edited.mp4"], headers=svc.headers, timeout=30)
    assert served.content == open(os.path.join(workdir, "edited.mp4"), "rb").read()
    reader = FrameReader(os.path.join(workdir, "edited.mp4"))
    assert len(reader) == FRAMES
    frames = reader.read(list(range(0, FRAMES, 50)) + [FRAMES - 1])  # decodes to the last frame
    assert frames.shape == (13, SIZE[1], SIZE[0], 3)


def _still_serves(svc, clips) -> None:
    job = _wait(svc, _submit(svc, clips["short"], "identity"), lambda j: j["state"] in ("succeeded", "failed"), 120)
    assert job["state"] == "succeeded", job


def test_kill_remover_replica_mid_removal(service, clips):
    job = _kill_mid_removal(service, clips, "CpuRemover")
    _assert_one_complete_output(service, job)
    _still_serves(service, clips)


def test_kill_api_replica_mid_removal(service, clips):
    """The ingress dies while its worker runs: the outcome it would have heard is lost, so the
    job's lease runs out and another attempt makes the edit (or the job fails with a reason)."""
    job = _kill_mid_removal(service, clips, "Api")
    _assert_one_complete_output(service, job)
    assert job["state"] == "failed" or job["attempts"] >= 2, job
    _still_serves(service, clips)
