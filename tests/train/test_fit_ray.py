"""The harness on Ray Train, against 1 worker accumulating twice in process (the same loop without
Ray). 2-worker DDP (gloo) whose rank 1 is killed mid-run is restarted by FailureConfig and
reaches the same weights; so does 2-worker FSDP2 killed mid-run, then rerun on the same output
(resuming from its sharded DCP checkpoint). A fit's placement-group cleaner reaches the State API
and leaves no traceback in the session's logs."""

import glob
import json
import os
import time

import pytest
import ray
import torch
from safetensors.torch import load_file

from g2w.runtime.train import run_fit
from g2w.train import FitConfig
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession
from tests.train.toy_task import ToyTask


def _cfg(out, workers, **kw):
    return FitConfig(
        str(out),
        steps=4,
        global_batch=4,
        micro_batch=2,
        lr=1e-2,
        num_workers=workers,
        checkpoint_every=2,
        cpus_per_worker=0.5,
        **kw,
    )


def _single(tmp_path, task):
    session = LocalSession(str(tmp_path / "single"))
    train_worker(task, _cfg(tmp_path / "single", 1), session)
    return session.metrics[-1], load_file(str(tmp_path / "single" / "checkpoint_00000004" / "weights.safetensors"))


def _assert_same_run(tmp_path, run, summary, expected):
    metrics, weights = expected
    history = json.loads((tmp_path / run / "history.json").read_text())
    assert [h["step"] for h in history] == [1, 2, 3, 4] and summary["steps"] == 4
    trained = load_file(str(tmp_path / run / "weights.safetensors"))
    assert set(trained) == set(weights)
    for k in weights:
        torch.testing.assert_close(trained[k], weights[k], rtol=1e-5, atol=1e-6)
    assert metrics["loss"] == pytest.approx(summary["final_loss"], rel=1e-5)
    assert (tmp_path / run / "report.html").exists() and (tmp_path / run / "loss_curve.png").exists()


@pytest.mark.slow
def test_ddp_restarted_after_a_kill_matches_accumulation(ray_local, tmp_path):
    expected = _single(tmp_path, ToyTask())
    marker = str(tmp_path / "killed")  # rank 1 dies at its 3rd micro-batch (step 3), after the step-2 checkpoint
    summary = run_fit(ToyTask(die_marker=marker, die_after=3), _cfg(tmp_path / "ddp", 2, max_failures=1))
    assert os.path.exists(marker)
    _assert_same_run(tmp_path, "ddp", summary, expected)


@pytest.mark.slow
def test_fsdp_killed_run_resumes_from_sharded_checkpoint_to_the_same_weights(ray_local, tmp_path):
    expected = _single(tmp_path, ToyTask(extra_every=1))
    marker = str(tmp_path / "killed")
    cfg = _cfg(tmp_path / "fsdp", 2, parallel="fsdp")
    with pytest.raises(Exception):  # rank 1 dies at its 3rd micro-batch (step 3), after the step-2 checkpoint
        run_fit(ToyTask(extra_every=1, die_marker=marker, die_after=3), cfg)
    assert os.path.exists(marker)
    ckpts = sorted(d for d in os.listdir(tmp_path / "fsdp") if d.startswith("checkpoint"))
    assert os.listdir(tmp_path / "fsdp" / ckpts[-1] / "dcp")  # the shards and DCP metadata, merged by Ray
    _assert_same_run(tmp_path, "fsdp", run_fit(ToyTask(extra_every=1), cfg), expected)


_CLEANER_FAILURES = ("PlacementGroupCleanerMonitor", "Failed to query Ray Train Controller", "API server address")


def _worker_logs(logs: str) -> dict[str, str]:
    found = {}
    for path in glob.glob(os.path.join(logs, "worker-*")):
        with open(path, errors="replace") as fh:
            found[os.path.basename(path)] = fh.read()
    return found


def test_fit_leaves_the_placement_group_cleaner_quiet(ray_local, tmp_path):
    logs = os.path.join(ray._private.worker._global_node.get_session_dir_path(), "logs")
    before = set(_worker_logs(logs))
    summary = run_fit(
        ToyTask(),
        FitConfig(
            str(tmp_path / "run"),
            steps=2,
            global_batch=2,
            micro_batch=2,
            lr=1e-2,
            num_workers=1,
            checkpoint_every=2,
            cpus_per_worker=0.5,
        ),
    )
    assert summary["steps"] == 2
    deadline = time.monotonic() + 10  # the cleaner's log file is written by its own process
    while True:
        new = {k: v for k, v in _worker_logs(logs).items() if k not in before}
        cleaner = [k for k, v in new.items() if ":actor_name:PlacementGroupCleaner" in v]
        if cleaner or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert cleaner, "the fit started no placement-group cleaner"
    time.sleep(2)  # past its one-second poll: a failing State API call shows within it
    failures = [
        (k, pat) for k, v in _worker_logs(logs).items() if k not in before for pat in _CLEANER_FAILURES if pat in v
    ]
    assert failures == []
