"""The evaluate job on a 2-CPU Ray whose CPUs are mostly held by others (as the service's replicas
hold theirs): it finishes on what is left, and with nothing left it fails naming the stage."""

import os
import time

import pytest
import ray

from g2w.cases.case import load_cases
from g2w.jobs.evaluate import run_evaluate
from g2w.remove import run_method
from tests.evaluate.synthetic_cases import write_synthesis_out


@ray.remote
class Replica:
    """Stands in for a Serve replica: holds its CPUs for as long as it lives."""

    def ping(self) -> int:
        return 1


@pytest.fixture(scope="module")
def cases_720p(tmp_path_factory) -> tuple[str, str]:
    """Two 1280x720 synthesized cases (the demo's resolution, one second each) and identity edits."""
    root = tmp_path_factory.mktemp("small_node")
    synth = write_synthesis_out(str(root / "synth"), count=2, width=1280, height=720, seconds=1.0)
    edits = str(root / "identity")
    os.makedirs(edits)
    for case in load_cases(synth):
        run_method("identity", case, case.edited_path(edits))
    return synth, edits


def _holding(cpus: float):
    replica = Replica.options(num_cpus=cpus).remote()
    ray.get(replica.ping.remote())
    return replica


def _release(replica) -> None:
    ray.kill(replica)
    deadline = time.monotonic() + 30
    while (
        ray.available_resources().get("CPU", 0) < ray.cluster_resources().get("CPU", 0) and time.monotonic() < deadline
    ):
        time.sleep(0.2)


def test_evaluate_finishes_beside_replicas_holding_most_cpus(ray_local, cases_720p, tmp_path):
    assert ray.cluster_resources()["CPU"] == 2
    synth, edits = cases_720p
    replica = _holding(1.5)
    try:
        start = time.monotonic()
        summary = run_evaluate(synth, edits, str(tmp_path / "eval"), judge="reference", stall_s=60)
        elapsed = time.monotonic() - start
    finally:
        _release(replica)
    assert (summary["cases"], summary["ok"], summary["error"]) == (2, 2, 0)
    assert elapsed < 60


def test_a_stage_that_can_never_run_fails_the_job_naming_it(ray_local, cases_720p, tmp_path, monkeypatch):
    """Through the service's evaluation path: the job fails with reason stage_stalled and an error
    record for the stage, within the stall time (plus Ray's shutdown), instead of hanging."""
    from serve.work import run_evaluation

    synth, edits = cases_720p
    monkeypatch.setenv("G2W_STAGE_STALL_S", "3")
    replica = _holding(ray.available_resources()["CPU"])  # every CPU held
    try:
        start = time.monotonic()
        out = run_evaluation({"params": {"cases": synth, "edited": edits}, "workdir": str(tmp_path)}, {})
        elapsed = time.monotonic() - start
    finally:
        _release(replica)
    assert out["state"] == "failed" and out["reason"] == "stage_stalled"
    assert out["errors"] == [{"item": "PrepareCases", "reason": "stage_stalled", "message": out["message"]}]
    assert out["message"].startswith("stage PrepareCases made no progress for 3 s: resources")
    assert "CPU" in out["message"] and "nothing free" in out["message"]
    assert elapsed < 30
