"""Flow matching (paper Eq. 3) and the Euler sampler.

Convention: z_t = (1 - t) * z0 + t * z1 with z0 ~ N(0, I) noise and z1 the clean latent, so the
velocity is v = z1 - z0 and t = 0 is pure noise. Wan is trained on the noise level
sigma = 1 - t and predicts (noise - clean) = -v, so the model's velocity is minus the DiT output.

Training timesteps: u ~ U(0, 1), shifted as sigma = s*u / (1 + (s - 1)*u) with s = `shift`
(5, as in Wan and at sampling), which spends more steps at high noise where the layout of the
clean frame is decided; t = 1 - sigma.

Sampler: Euler over the same shifted grid, `steps` steps (50 by default), no classifier-free
guidance (the condition is the source itself).
"""

from __future__ import annotations

import torch

SHIFT = 5.0
STEPS = 50


def shifted_sigma(u: torch.Tensor, shift: float = SHIFT) -> torch.Tensor:
    return shift * u / (1 + (shift - 1) * u)


def sample_t(batch: int, generator: torch.Generator, device, shift: float = SHIFT) -> torch.Tensor:
    u = torch.rand(batch, generator=generator, device=device)
    return 1.0 - shifted_sigma(u, shift)


def velocity(dit, latents, t, context, source, reference=None) -> torch.Tensor:
    return -dit(latents, t, context, source, reference)


def flow_matching_loss(dit, clean, context, source, reference, generator, shift: float = SHIFT) -> torch.Tensor:
    """MSE between predicted and true velocity at a random t per sample."""
    noise = torch.randn(clean.shape, generator=generator, device=clean.device, dtype=clean.dtype)
    t = sample_t(clean.shape[0], generator, clean.device, shift)
    tt = t.view(-1, 1, 1, 1, 1).to(clean.dtype)
    z_t = (1 - tt) * noise + tt * clean
    pred = velocity(dit, z_t, t, context, source, reference)
    return torch.nn.functional.mse_loss(pred.float(), (clean - noise).float())


@torch.no_grad()
def euler_sample(
    dit,
    context,
    source,
    reference=None,
    steps: int = STEPS,
    shift: float = SHIFT,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Integrate from noise (t = 0) to a clean latent shaped like `source`."""
    z = torch.randn(source.shape, generator=generator, device=source.device, dtype=source.dtype)
    sigmas = shifted_sigma(torch.linspace(1.0, 0.0, steps + 1, device=source.device), shift)
    for k in range(steps):
        t = (1.0 - sigmas[k]).expand(source.shape[0])
        v = velocity(dit, z, t, context, source, reference)
        z = z + (sigmas[k] - sigmas[k + 1]).to(z.dtype) * v.to(z.dtype)
    return z
