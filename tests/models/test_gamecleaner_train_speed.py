"""Training with the DiT's speed options, on CPU with the tiny preset: the task builds the model
with them (so the harness wraps an already compiled, backend-set DiT), and a training step of
the real loop gives the loss and gradients of the default one."""

import pytest
import torch
from diffusers.models.attention_dispatch import AttentionBackendName, _AttentionBackendRegistry

from g2w.models.gamecleaner.task import GameCleanerTask
from g2w.train.config import FitConfig
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession
from tests.models.test_gamecleaner_cache import _cache


def test_an_unknown_backend_is_refused_on_the_driver(tmp_path, make_video):
    with pytest.raises(ValueError, match="attention 'fastest': one of"):
        GameCleanerTask(_cache(tmp_path, make_video), attention="fastest")


def _step(task, out) -> dict:
    cfg = FitConfig(str(out), steps=1, global_batch=2, checkpoint_every=1)
    return train_worker(task, cfg, LocalSession(str(out)))


@pytest.mark.slow
def test_a_step_with_a_backend_and_a_compiled_dit_matches_the_default_step(tmp_path, make_video):
    cache = _cache(tmp_path, make_video)
    before = _AttentionBackendRegistry._active_backend
    fast = GameCleanerTask(cache, validation_pairs=0, attention="_native_math", compile=True)
    model = fast.build_model(torch.device("cpu"))
    transformer = model.dit.transformer
    assert all(b._compiled_call_impl is not None for b in transformer.blocks)
    assert {m.processor._attention_backend for m in transformer.modules() if hasattr(m, "processor")} == {
        AttentionBackendName._NATIVE_MATH
    }
    assert _AttentionBackendRegistry._active_backend == before
    default = _step(GameCleanerTask(cache, validation_pairs=0), tmp_path / "default")
    chosen = _step(fast, tmp_path / "fast")
    assert chosen["loss"] == pytest.approx(default["loss"], rel=1e-4)
    assert chosen["grad_norm"] == pytest.approx(default["grad_norm"], rel=1e-3)
