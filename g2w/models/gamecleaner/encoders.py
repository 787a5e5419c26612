"""The frozen encoders around the trainable core: the Wan VAE and the Qwen2.5-VL condition.

Both load from local folders only (`BASE/vae` in diffusers layout, an MLLM folder in transformers
layout) or, for presets that allow it (tiny), are random-initialised from the preset's config.
Latents are normalised with the VAE's per-channel mean and std, as Wan's pipelines do. On CUDA the
VAE runs in bf16, loaded as diffusers intends (`torch_dtype`, keeping its fp32 modules).
"""

from __future__ import annotations

import os

import numpy as np
import torch

from g2w.models.gamecleaner.condition import MLLMEncoder
from g2w.models.gamecleaner.model import cast_keeping_fp32
from g2w.models.gamecleaner.presets import GameCleanerConfig

# 720p-class frames (the 5B preset's 1280x704 and the 14B preset's 1280x720): a whole-frame VAE
# pass over 81 frames holds activations that do not fit next to the DiT, so it runs in tiles.
VAE_TILING_MIN_PIXELS = 1280 * 704


def needs_vae_tiling(config: GameCleanerConfig) -> bool:
    return config.width * config.height >= VAE_TILING_MIN_PIXELS


class Encoders:
    def __init__(
        self,
        config: GameCleanerConfig,
        base_dir: str | None = None,
        mllm_dir: str | None = None,
        device: str | torch.device = "cpu",
        seed: int = 0,
        with_mllm: bool = True,
    ):
        from diffusers import AutoencoderKLWan

        self.config = config
        self.device = torch.device(device)
        self.dtype = torch.bfloat16 if self.device.type == "cuda" else torch.float32
        torch.manual_seed(seed)
        if base_dir is None:
            vae = AutoencoderKLWan(**config.vae)
            self.vae = cast_keeping_fp32(vae, self.dtype, AutoencoderKLWan._keep_in_fp32_modules)
        else:
            folder = os.path.join(base_dir, "vae")
            if not os.path.isfile(os.path.join(folder, "config.json")):
                raise FileNotFoundError(
                    f"{folder}/config.json not found: expected a diffusers Wan VAE folder (BASE/vae)"
                )
            self.vae = AutoencoderKLWan.from_pretrained(folder, torch_dtype=self.dtype)
        self.vae.requires_grad_(False).eval().to(self.device)
        if needs_vae_tiling(config):
            self.vae.enable_tiling()
        self.mllm = MLLMEncoder(config, mllm_dir).to(self.device) if with_mllm else None
        stats = self.vae.config
        self.mean = torch.tensor(stats.latents_mean, device=self.device).view(1, -1, 1, 1, 1)
        self.std = torch.tensor(stats.latents_std, device=self.device).view(1, -1, 1, 1, 1)

    @torch.no_grad()
    def encode(self, frames: np.ndarray) -> torch.Tensor:
        """uint8 [F, H, W, 3] -> normalised latent [1, C, f, h, w] (float32)."""
        x = torch.from_numpy(np.ascontiguousarray(frames)).to(self.device).permute(3, 0, 1, 2)[None]
        x = x.to(self.dtype) / 127.5 - 1.0
        z = self.vae.encode(x).latent_dist.mode().float()
        return (z - self.mean) / self.std

    @torch.no_grad()
    def decode(self, latents: torch.Tensor) -> np.ndarray:
        """Normalised latent [1, C, f, h, w] -> uint8 frames [F, H, W, 3]."""
        z = (latents.float() * self.std + self.mean).to(self.dtype)
        x = self.vae.decode(z).sample[0].float().clamp(-1, 1)
        return ((x + 1) * 127.5).round().byte().permute(1, 2, 3, 0).cpu().numpy()

    def mllm_states(self, frames: np.ndarray, queries: torch.Tensor) -> torch.Tensor:
        """The source clip's MLLM states at the query positions [1, N, width], from
        `mllm_frames` frames sampled evenly over the clip."""
        picks = np.linspace(0, len(frames) - 1, self.config.mllm_frames).round().astype(int)
        fps = self.config.fps * (len(picks) - 1) / max(1, len(frames) - 1)
        return self.mllm.encode([frames[picks]], fps, queries)
