"""The few-step samplers solve GameCleaner's flow: on the field of a model that knows the clean
latent, UniPC and DPM-Solver++ reach it in 12 steps as Euler does in 50; the DiT sees t = 1 - sigma,
rising from noise, once per step; samplers are chosen by name."""

import pytest
import torch

from g2w.models.gamecleaner import flow
from g2w.models.gamecleaner.samplers import SAMPLERS, sample

TARGET = torch.linspace(-1.0, 1.0, 2 * 4 * 3 * 5 * 6).reshape(2, 4, 3, 5, 6)


def exact_dit(z, t, context, source, reference):
    """The DiT output of a model that knows the clean latent: noise - clean at z_t, given that
    z_t = (1 - t) noise + t clean (Wan's convention, minus the velocity)."""
    tt = t.view(-1, 1, 1, 1, 1).to(z.dtype)
    noise = (z - tt * TARGET) / (1 - tt).clamp_min(1e-4)
    return noise - TARGET


def _err(sampler: str, steps: int) -> float:
    g = torch.Generator().manual_seed(0)
    out = sample(exact_dit, None, torch.zeros_like(TARGET), sampler=sampler, steps=steps, generator=g)
    return float((out - TARGET).abs().max())


def test_every_sampler_reaches_the_known_end_point():
    for name in SAMPLERS:
        assert _err(name, 50 if name == "euler" else 12) < 1e-2, name


def test_euler_is_the_flow_modules_sampler():
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    src = torch.zeros_like(TARGET)
    a = sample(exact_dit, None, src, sampler="euler", steps=7, generator=g1)
    b = flow.euler_sample(exact_dit, None, src, steps=7, generator=g2)
    assert torch.equal(a, b)


def test_the_dit_is_called_once_per_step_with_t_rising_from_noise():
    seen = []

    def dit(z, t, c, s, r):
        seen.append(float(t[0]))
        return exact_dit(z, t, c, s, r)

    sample(dit, None, torch.zeros_like(TARGET), sampler="unipc", steps=10, generator=torch.Generator().manual_seed(0))
    assert len(seen) == 10 and seen == sorted(seen) and seen[0] < 0.05 and seen[-1] < 1


def test_unknown_sampler_and_zero_steps_are_refused():
    with pytest.raises(ValueError, match="unknown sampler"):
        sample(exact_dit, None, torch.zeros_like(TARGET), sampler="ddim", steps=4)
    with pytest.raises(ValueError, match="at least 1"):
        sample(exact_dit, None, torch.zeros_like(TARGET), sampler="unipc", steps=0)
