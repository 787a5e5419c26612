"""The DiT's speed options on CPU with the tiny preset: each attention backend that runs on CPU
gives the native output, a CUDA-only one is refused by name, diffusers' process-wide default is
left as it was, and the regionally compiled DiT runs and matches the eager one."""

import pytest
import torch
from diffusers.models.attention_dispatch import AttentionBackendName, _AttentionBackendRegistry

from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset
from g2w.models.gamecleaner.speed import CPU_BACKENDS, apply_speed, check_attention, set_attention

CFG = get_preset("tiny")


def _inputs():
    g = torch.Generator().manual_seed(0)
    shape = (1, *CFG.latent_shape())
    z, source = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
    reference = torch.randn((1, shape[1], 1, *shape[3:]), generator=g)
    return z, torch.tensor([0.3]), source, reference, torch.randn(1, CFG.num_queries, 64, generator=g)


def _run(model, inputs):
    z, t, source, reference, states = inputs
    with torch.no_grad():
        return model(z, t, source, reference, states=states)


def _backends(transformer) -> set:
    return {m.processor._attention_backend for m in transformer.modules() if hasattr(m, "processor")}


@pytest.mark.parametrize("backend", CPU_BACKENDS)
def test_each_cpu_backend_runs_the_tiny_dit_like_native_and_leaves_the_global_default(backend):
    model = load_gamecleaner(None, CFG, seed=1).eval()
    inputs = _inputs()
    expected = _run(model, inputs)
    before = _AttentionBackendRegistry._active_backend
    set_attention(model.dit.transformer, backend, "cpu")
    assert _backends(model.dit.transformer) == {AttentionBackendName(backend)}  # every attention of the DiT
    assert _AttentionBackendRegistry._active_backend == before
    torch.testing.assert_close(_run(model, inputs), expected, rtol=1e-4, atol=1e-5)
    set_attention(model.dit.transformer, None, "cpu")
    assert _backends(model.dit.transformer) == {None}


def test_backends_cpu_cannot_run_are_refused_by_name_before_any_change():
    model = load_gamecleaner(None, CFG).eval()
    for name, says in (
        ("_native_cudnn", "'_native_cudnn' needs a CUDA device; on cpu use one of native, _native_flash"),
        ("sage", "'sage' needs a CUDA device"),
        ("fastest", "unknown attention backend 'fastest': one of flash,"),
    ):
        with pytest.raises(ValueError, match=says):
            set_attention(model.dit.transformer, name, "cpu")
        assert _backends(model.dit.transformer) == {None}
    # on CUDA a backend whose package is absent is refused with diffusers' own words
    with pytest.raises(ValueError, match="'xformers'.*xformers"):
        check_attention("xformers", "cuda")
    assert check_attention("_native_cudnn", "cuda") == "_native_cudnn"


@pytest.mark.slow
def test_the_compiled_dit_with_a_chosen_backend_runs_forward_and_backward_like_the_eager_one():
    eager = load_gamecleaner(None, CFG, seed=2)
    compiled = load_gamecleaner(None, CFG, seed=2)
    apply_speed(compiled.dit.transformer, "_native_math", True, "cpu")
    assert all(b._compiled_call_impl is not None for b in compiled.dit.transformer.blocks)
    inputs = _inputs()
    outs = []
    for model in (eager, compiled):
        z, t, source, reference, states = inputs
        out = model(z, t, source, reference, states=states)
        out.square().mean().backward()
        grad = model.dit.transformer.blocks[0].attn1.to_q.lora_A["default"].weight.grad
        outs.append((out.detach(), grad))
    torch.testing.assert_close(outs[1][0], outs[0][0], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(outs[1][1], outs[0][1], rtol=1e-3, atol=1e-6)
