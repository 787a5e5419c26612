"""FSDP2 gathers GameCleaner's weights in the dtypes diffusers keeps them in: with the bf16 base a
GPU worker builds, the fp32-kept modules (time embedder, modulation tables, norms) stay fp32 and
the flow time and RoPE tables reach the model and its blocks in fp32, so a sharded step computes
what the unsharded one does. One gloo process on CPU, bf16 autocast as on a GPU."""

import socket

import torch
import torch.distributed as dist

from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset
from g2w.train import sharding

CFG = get_preset("tiny")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _step(model, seen=None):
    g = torch.Generator().manual_seed(0)
    shape = (1, *CFG.latent_shape())
    z, source = torch.randn(shape, generator=g), torch.randn(shape, generator=g)
    reference = torch.randn((1, shape[1], 1, *shape[3:]), generator=g)
    states = torch.randn(1, CFG.num_queries, 64, generator=g)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(z, torch.tensor([0.123456]), source, reference, states=states)
    out.float().square().mean().backward()
    lora = next(p for n, p in model.named_parameters() if "lora_A" in n)
    grad = lora.grad.full_tensor() if hasattr(lora.grad, "full_tensor") else lora.grad
    return out.detach().float(), grad


def test_fsdp_gathers_fp32_kept_modules_and_inputs_in_fp32_and_matches_the_unsharded_step():
    plain = load_gamecleaner(None, CFG, seed=7, dtype=torch.bfloat16)
    sharded = load_gamecleaner(None, CFG, seed=7, dtype=torch.bfloat16)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_port()}", rank=0, world_size=1)
    try:
        transformer = sharded.dit.transformer
        sharding.shard(sharded, list(transformer.blocks))
        seen = {}
        block = transformer.blocks[0]

        def in_block(module, args):
            seen["scale_shift_table"] = module.scale_shift_table.dtype
            seen["norm2"] = module.norm2.weight.dtype
            seen["to_q"] = module.attn1.to_q.base_layer.weight.dtype
            seen["rope"] = {t.dtype for t in args[3]}

        def at_root(module, args):
            seen["t"] = args[1].dtype

        block.register_forward_pre_hook(in_block)
        sharded.register_forward_pre_hook(at_root)
        transformer.condition_embedder.time_embedder.register_forward_pre_hook(
            lambda m, a: seen.__setitem__("time_embedder", m.linear_1.weight.dtype)
        )
        out, grad = _step(sharded)
    finally:
        dist.destroy_process_group()
    assert seen == {
        "scale_shift_table": torch.float32,
        "norm2": torch.float32,
        "to_q": torch.bfloat16,
        "rope": {torch.float32},
        "t": torch.float32,
        "time_embedder": torch.float32,
    }
    expected_out, expected_grad = _step(plain)
    torch.testing.assert_close(out, expected_out, rtol=0, atol=0)
    torch.testing.assert_close(grad, expected_grad, rtol=1e-5, atol=1e-7)
