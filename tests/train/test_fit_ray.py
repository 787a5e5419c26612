"""The harness on Ray Train: a 2-worker DDP run (gloo) whose rank 1 is killed mid-run, then rerun
on the same output, ends at the weights of 1 worker accumulating twice, uninterrupted (run in
process: the same loop without Ray, to keep the test to two Ray Train runs)."""

import json
import os

import pytest
import torch
from safetensors.torch import load_file

from g2w.train import FitConfig, fit
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession
from tests.train.toy_task import ToyTask


def _cfg(out, workers):
    return FitConfig(str(out), steps=4, global_batch=4, micro_batch=2, lr=1e-2, num_workers=workers,
                     checkpoint_every=2, cpus_per_worker=0.5)


@pytest.mark.slow
def test_ddp_matches_accumulation_and_a_killed_run_resumes_to_the_same_weights(ray_local, tmp_path):
    single = LocalSession(str(tmp_path / "single"))
    train_worker(ToyTask(), _cfg(tmp_path / "single", 1), single)
    marker = str(tmp_path / "killed")
    with pytest.raises(Exception):  # rank 1 dies at its 3rd micro-batch (step 3), after the step-2 checkpoint
        fit(ToyTask(die_marker=marker, die_after=3), _cfg(tmp_path / "ddp", 2))
    assert os.path.exists(marker)
    resumed = fit(ToyTask(die_marker=marker), _cfg(tmp_path / "ddp", 2))
    history = json.loads((tmp_path / "ddp" / "history.json").read_text())
    assert [h["step"] for h in history] == [1, 2, 3, 4] and resumed["steps"] == 4
    a = load_file(str(tmp_path / "single" / "checkpoint_00000004" / "weights.safetensors"))
    b = load_file(str(tmp_path / "ddp" / "weights.safetensors"))
    assert set(a) == set(b)
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=1e-5, atol=1e-6)
    assert single.metrics[-1]["loss"] == pytest.approx(resumed["final_loss"], rel=1e-5)
    assert (tmp_path / "ddp" / "report.html").exists() and (tmp_path / "ddp" / "loss_curve.png").exists()
