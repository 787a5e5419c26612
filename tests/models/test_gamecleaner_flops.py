"""The analytic FLOP count (MFU's numerator) against an op-level count of the tiny model's real
forward and backward, with a frozen base: LoRA on attention (and on the FFN), the connector
frozen (context given) or training (MLLM states given)."""

import pytest
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils.flop_counter import FlopCounterMode

from g2w.models.gamecleaner.flops import forward_flops, training_flops
from g2w.models.gamecleaner.model import GameCleaner, build_transformer, mllm_width
from g2w.models.gamecleaner.presets import get_preset


def _counted(fn) -> int:
    # the math backend decomposes attention into matmuls, which the counter sees forward and backward
    with sdpa_kernel(SDPBackend.MATH), FlopCounterMode(display=False) as counter:
        fn()
    return counter.get_total_flops()


@pytest.mark.parametrize("lora_ffn", [False, True])
@pytest.mark.parametrize("train_connector", [False, True])
def test_flop_count_equals_the_op_level_count_of_a_frozen_base_lora_step(lora_ffn, train_connector):
    cfg = get_preset("tiny").with_options(lora_ffn=lora_ffn)
    model = GameCleaner(cfg, build_transformer(cfg, None), train_connector=train_connector)
    shape = (1, *cfg.latent_shape())
    latents, source = torch.randn(shape), torch.randn(shape)
    reference = torch.randn(1, shape[1], 1, *shape[3:])
    states = torch.randn(1, cfg.num_queries, mllm_width(cfg))
    cond = {"states": states} if train_connector else {"context": model.context(states).detach()}
    t = torch.tensor([0.3])

    def sample():
        with torch.no_grad():
            model(latents, t, source, reference, **cond)

    def train():
        model(latents, t, source, reference, **cond).square().mean().backward()

    connector = _counted(lambda: model.context(states)) if train_connector else 0
    assert _counted(sample) == forward_flops(cfg) + connector
    assert _counted(train) == training_flops(cfg, train_connector=train_connector)


def test_lora_training_is_well_under_three_forwards_at_real_size():
    for name, low, high in (("wan21-1.3b", 2.6, 2.8), ("wan22-ti2v-5b", 2.4, 2.6)):
        cfg = get_preset(name)
        assert low < training_flops(cfg) / forward_flops(cfg) < high
