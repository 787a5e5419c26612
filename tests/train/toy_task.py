"""A small regression task for harness tests: an MLP with optional dropout (global RNG), a frozen layer,
a sometimes-unused branch (exercises zero-grad filling under DDP) and noise from the generator."""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from g2w.train import TrainTask


class ToyNet(torch.nn.Module):
    def __init__(self, dropout: float):
        super().__init__()
        self.frozen = torch.nn.Linear(4, 8)
        self.frozen.requires_grad_(False)
        self.body = torch.nn.Sequential(
            torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Dropout(dropout), torch.nn.Linear(16, 1)
        )
        self.extra = torch.nn.Linear(8, 1)  # used only when the batch asks for it

    def forward(self, x, use_extra: bool = False):
        h = self.frozen(x)
        out = self.body(h)
        return out + self.extra(h) if use_extra else out


@dataclass
class ToyTask(TrainTask):
    examples: int = 24
    die_marker: str = ""  # if set and absent: rank 1 creates it and exits at its `die_after`-th micro-batch
    die_after: int = 3
    dropout: float = 0.0  # draws from the global RNG, so it differs between worker counts
    extra_every: int = 3  # the extra branch runs on batches whose first index is a multiple (1: always, as FSDP needs)
    name = "toy"

    def build_model(self, device):
        torch.manual_seed(123)
        self._calls = 0
        return ToyNet(self.dropout).to(device)

    def num_examples(self):
        return self.examples

    def load_batch(self, indices, device):
        g = torch.Generator().manual_seed(7)
        x = torch.randn(self.examples, 4, generator=g)
        y = 0.5 * torch.tanh(x @ torch.tensor([[1.0], [-2.0], [0.5], [1.5]]))
        idx = torch.tensor(indices)
        return {"x": x[idx].to(device), "y": y[idx].to(device), "extra": bool(indices[0] % self.extra_every == 0)}

    def loss(self, model, batch, generator):
        self._calls += 1
        if self.die_marker and not os.path.exists(self.die_marker) and self._calls >= self.die_after:
            import torch.distributed as dist

            if dist.is_initialized() and dist.get_rank() == 1:
                open(self.die_marker, "w").close()
                os._exit(1)
        noise = 0.01 * torch.randn(batch["y"].shape, generator=generator, device=batch["y"].device)
        pred = model(batch["x"], use_extra=batch["extra"])
        return torch.nn.functional.mse_loss(pred, batch["y"] + noise)
