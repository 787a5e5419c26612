"""The training loop in-process (no Ray): learning, exact resume, strict weight loading."""

import pytest
import torch
from safetensors.torch import load_file, save_file

from g2w.train import FitConfig
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession
from tests.train.toy_task import ToyTask


def _run(out, steps, **kw):
    session = LocalSession(str(out))
    cfg = FitConfig(str(out), steps=steps, global_batch=4, micro_batch=2, lr=3e-2, checkpoint_every=3, **kw)
    train_worker(ToyTask(dropout=0.05), cfg, session)
    return session


def test_loss_falls_and_only_trainable_weights_are_saved(tmp_path):
    session = _run(tmp_path, 30)
    losses = [m["loss"] for m in session.metrics]
    assert sum(losses[-5:]) < 0.5 * sum(losses[:5])
    saved = load_file(str(tmp_path / "checkpoint_00000030" / "weights.safetensors"))
    assert not any(k.startswith("frozen") for k in saved) and "extra.weight" in saved


def test_resume_is_bit_exact(tmp_path):
    straight = _run(tmp_path / "a", 7)
    _run(tmp_path / "b", 4)  # stops after step 4 (checkpoint at 3 and at the end)
    resumed = _run(tmp_path / "b", 7)
    assert resumed.metrics[0]["step"] == 5
    a = load_file(str(tmp_path / "a" / "checkpoint_00000007" / "weights.safetensors"))
    b = load_file(str(tmp_path / "b" / "checkpoint_00000007" / "weights.safetensors"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert [m["loss"] for m in straight.metrics[4:]] == [m["loss"] for m in resumed.metrics]


def test_mismatched_weights_name_the_keys(tmp_path):
    task = ToyTask()
    model = task.build_model(torch.device("cpu"))
    path = str(tmp_path / "w.safetensors")
    state = {k: v.detach() for k, v in task.trainable_parameters(model).items()}
    state.pop("extra.bias")
    state["stray.weight"] = torch.zeros(2)
    save_file(state, path)
    with pytest.raises(KeyError, match=r"missing \[extra.bias\].*unexpected \[stray.weight\]"):
        task.load_weights(model, path)
