"""Samplers for GameCleaner's flow: the 50-step Euler of training's grid, or a multistep solver
that reaches a comparable latent in 8-16 model calls.

Removal's cost is one DiT forward per step, so the step count is the price of a clip. diffusers'
flow-matching multistep solvers (UniPC, DPM-Solver++) reuse the last few model outputs to take
higher-order steps, the way the Wan pipelines sample. They are used as diffusers ships them:
`use_flow_sigmas` with the same shift as training, `prediction_type="flow_prediction"`, and the
DiT's own output (Wan's noise-minus-clean) as the model output; each step's noise level sigma
gives the DiT its time t = 1 - sigma, as in `flow`.
"""

from __future__ import annotations

import torch

from g2w.models.gamecleaner import flow

SAMPLERS = ("euler", "unipc", "dpm++")
FEW_STEPS = 12  # a multistep solver's usual setting for Wan-class flow models


def scheduler(name: str, shift: float = flow.SHIFT):
    """A fresh diffusers scheduler for `name` (a solver keeps state, so one per sampling run)."""
    from diffusers import DPMSolverMultistepScheduler, UniPCMultistepScheduler

    common = {"num_train_timesteps": 1000, "prediction_type": "flow_prediction", "use_flow_sigmas": True}
    if name == "unipc":
        return UniPCMultistepScheduler(flow_shift=shift, **common)
    if name == "dpm++":
        return DPMSolverMultistepScheduler(algorithm_type="dpmsolver++", flow_shift=shift, **common)
    raise ValueError(f"unknown sampler {name!r}: one of {', '.join(SAMPLERS)}")


@torch.no_grad()
def sample(
    dit,
    context,
    source,
    reference=None,
    sampler: str = "euler",
    steps: int = flow.STEPS,
    shift: float = flow.SHIFT,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """A clean latent shaped like `source`, from noise, in `steps` DiT calls."""
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if sampler == "euler":
        return flow.euler_sample(dit, context, source, reference, steps=steps, shift=shift, generator=generator)
    solver = scheduler(sampler, shift)
    solver.set_timesteps(steps, device=source.device)
    z = torch.randn(source.shape, generator=generator, device=source.device, dtype=source.dtype)
    for k, timestep in enumerate(solver.timesteps):
        t = (1.0 - solver.sigmas[k]).to(source.device, torch.float32).expand(source.shape[0])
        out = dit(z, t, context, source, reference)  # noise - clean: diffusers' flow prediction
        z = solver.step(out.to(z.dtype), timestep, z).prev_sample
    return z
