"""The video DiT with the source residual (paper Eq. 2) and the optional reference frame.

    h_t = PE(z_t) + gamma(t) * PE_src(VAE(x_src))

PE is the Wan DiT's own patch embedding; PE_src is a Conv3d with the same patch size,
zero-initialised so that training starts from the base DiT's behaviour. gamma(t) is learnable and
timestep-dependent: gamma = a + b * sigma, where sigma = 1 - t is the noise level of the flow
(t = 0 noise, t = 1 clean, see flow.py). It starts at a = 0, b = 1, i.e. exactly sigma(t), the
weight Kiwi-Edit's released code applies there, so an imported Kiwi-Edit checkpoint behaves as
released, and training may then move both coefficients.

A reference (clean) frame is VAE-encoded to one latent frame, embedded by its own zero-initialised
Conv3d and appended after the video tokens, at the next temporal rotary position; its tokens are
cut from the output. Appended tokens take part in self-attention even while their embedding is
zero, so the zero-init identity holds for the residual path, not for a run that passes a reference.

No reference is no reference tokens, in training (a dropped reference) and at inference alike, as
in Kiwi-Edit, whose pipeline appends reference tokens only when a reference is given: the model is
trained in the state it is run in. The reference embedder then still runs, on an empty set of
patches, so every forward reaches every trainable tensor (a zero gradient), which DDP without an
unused-parameter search and FSDP2 both need.

The DiT's cross-attention context is the MLLM connector's output at the DiT width, so the text
embedder (built for 4096-d T5 features) is bypassed. The output is Wan's own prediction
(noise minus clean latent); flow.py turns it into the velocity of Eq. 3.
"""

from __future__ import annotations

import torch
from torch import nn

from g2w.models.gamecleaner.presets import GameCleanerConfig


def _tokens(x: torch.Tensor) -> torch.Tensor:
    return x.flatten(2).transpose(1, 2)


class GameCleanerDiT(nn.Module):
    def __init__(self, config: GameCleanerConfig, transformer: nn.Module):
        super().__init__()
        self.config = config
        self.transformer = transformer
        patch = tuple(transformer.config.patch_size)
        channels, width = transformer.config.in_channels, config.dit_width
        self.source_embed = nn.Conv3d(channels, width, kernel_size=patch, stride=patch)
        self.reference_embed = nn.Conv3d(channels, width, kernel_size=patch, stride=patch)
        for conv in (self.source_embed, self.reference_embed):
            nn.init.zeros_(conv.weight)
            nn.init.zeros_(conv.bias)
        self.gamma = nn.Parameter(torch.tensor(config.gamma_init, dtype=torch.float32))

    def gamma_of(self, sigma: torch.Tensor) -> torch.Tensor:
        return self.gamma[0] + self.gamma[1] * sigma

    def forward(
        self,
        latents: torch.Tensor,
        t: torch.Tensor,
        context: torch.Tensor,
        source: torch.Tensor,
        reference: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """latents, source [B, C, F, H, W]; t [B] in [0, 1]; context [B, N, D]; reference [B, C, 1, H, W].
        Returns Wan's prediction [B, C, F, H, W]."""
        tr = self.transformer
        b, _, f, h, w = latents.shape
        p_t, p_h, p_w = tr.config.patch_size
        sigma = 1.0 - t.float()
        rope_input = latents if reference is None else torch.cat([latents, reference], dim=2)
        rotary = tr.rope(rope_input)
        hidden = _tokens(tr.patch_embedding(latents))
        gamma = self.gamma_of(sigma).to(hidden.dtype)[:, None, None]
        hidden = hidden + gamma * _tokens(self.source_embed(source.to(hidden.dtype)))
        n_video = hidden.shape[1]
        hidden = torch.cat([hidden, self._reference_tokens(reference, hidden)], dim=1).contiguous()
        temb, timestep_proj = self._time(sigma * 1000.0, context)
        for block in tr.blocks:
            if torch.is_grad_enabled() and tr.gradient_checkpointing:
                hidden = tr._gradient_checkpointing_func(block, hidden, context, timestep_proj, rotary)
            else:
                hidden = block(hidden, context, timestep_proj, rotary)
        hidden = hidden[:, :n_video]
        shift, scale = (tr.scale_shift_table.to(temb.device) + temb.unsqueeze(1)).chunk(2, dim=1)
        hidden = (tr.norm_out(hidden.float()) * (1 + scale) + shift).type_as(hidden)
        hidden = tr.proj_out(hidden)
        hidden = hidden.reshape(b, f // p_t, h // p_h, w // p_w, p_t, p_h, p_w, -1)
        return hidden.permute(0, 7, 1, 4, 2, 5, 3, 6).flatten(6, 7).flatten(4, 5).flatten(2, 3)

    def _reference_tokens(self, reference: torch.Tensor | None, hidden: torch.Tensor) -> torch.Tensor:
        """The reference's tokens [B, n, D]; none (n = 0) without a reference."""
        conv = self.reference_embed
        if reference is not None:
            return _tokens(conv(reference.to(hidden.dtype)))
        empty = hidden.new_zeros(hidden.shape[0], 0, conv.weight[0].numel())
        return nn.functional.linear(empty, conv.weight.flatten(1).to(hidden.dtype), conv.bias.to(hidden.dtype))

    def _time(self, timestep: torch.Tensor, context: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Wan's time embedding and its 6-way modulation, without the text embedder."""
        emb = self.transformer.condition_embedder
        proj = emb.timesteps_proj(timestep)
        proj = proj.to(next(emb.time_embedder.parameters()).dtype)
        temb = emb.time_embedder(proj).type_as(context)
        return temb, emb.time_proj(emb.act_fn(temb)).unflatten(1, (6, -1))
