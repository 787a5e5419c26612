"""CLIP image embeddings (open_clip), L2-normalized, from already centre-cropped frames.

Weights come from `pretrained`: an open_clip tag (e.g. "openai") resolved from the local cache
only — this machine cannot download — or a path to a weights file. Without `pretrained` the
model is randomly initialized, from `seed`, so every actor and every rerun embeds into the same
space; `is_random` says so, and callers must report that plainly.
`model` is an open_clip architecture name, or a path to an open_clip model-config JSON (how
tests run a tiny tower).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ClipSpec:
    model: str = "ViT-B-16"
    pretrained: str | None = None
    device: str = "auto"  # auto | cpu | cuda
    seed: int = 0  # initializes the weights when there are no pretrained ones


def resolve_device(device: str) -> str:
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device 'cuda' was asked for but CUDA is not available here")
    return device


class ClipEmbedder:
    def __init__(self, spec: ClipSpec):
        import open_clip
        import torch

        name = spec.model
        if name.endswith(".json"):
            open_clip.add_model_config(name)
            name = os.path.splitext(os.path.basename(name))[0]
        if spec.pretrained and not os.path.exists(spec.pretrained):
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a tag is looked up in the local cache only
        self.device = resolve_device(spec.device)
        with torch.random.fork_rng(devices=[]):  # seeded init without touching the caller's RNG
            torch.manual_seed(spec.seed)
            self.model = (
                open_clip.create_model(
                    name, pretrained=spec.pretrained or None, device="cpu", require_pretrained=bool(spec.pretrained)
                )
                .eval()
                .to(self.device)
            )
        self.is_random = not spec.pretrained
        self.image_size = int(np.atleast_1d(self.model.visual.image_size)[0])
        self.dim = int(self.model.visual.output_dim)
        mean = getattr(self.model.visual, "image_mean", None) or open_clip.OPENAI_DATASET_MEAN
        std = getattr(self.model.visual, "image_std", None) or open_clip.OPENAI_DATASET_STD
        self._mean = torch.tensor(mean, device=self.device).view(1, 3, 1, 1)
        self._std = torch.tensor(std, device=self.device).view(1, 3, 1, 1)
        self._torch = torch

    def embed(self, crops: np.ndarray) -> np.ndarray:
        """(n, S, S, 3) uint8 RGB crops at the model's input size -> (n, dim) float32, unit norm."""
        torch = self._torch
        if crops.shape[1:3] != (self.image_size, self.image_size):
            raise ValueError(f"crops are {crops.shape[1:3]}, the model takes {self.image_size}x{self.image_size}")
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(crops)).to(self.device).permute(0, 3, 1, 2).float() / 255
            x = (x - self._mean) / self._std
            with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=self.device == "cuda"):
                features = self.model.encode_image(x)
            features = torch.nn.functional.normalize(features.float(), dim=-1)
        return features.cpu().numpy()
