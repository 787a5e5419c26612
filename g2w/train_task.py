"""The training-task protocol: everything the harness (`g2w.train`) needs to know about one model.

It sits below both the harness and the models that implement it, so a model never imports the
harness.

A task is a small picklable object (its fields are its configuration) that is shipped to every
training worker; heavy state (weights, data index) is built there, in `build_model` and
`num_examples`/`load_batch`, never on the driver.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence

import torch
from safetensors.torch import load_file, save_file


def full(tensor: torch.Tensor) -> torch.Tensor:
    """The whole tensor behind a sharded one (a collective: every worker must call it)."""
    return tensor.full_tensor() if hasattr(tensor, "full_tensor") else tensor  # a DTensor


class TrainTask(ABC):
    name = "task"
    # DDP must then search every backward for trainable parameters the step left out (a conditional
    # branch); a task whose every step reaches every trainable parameter sets it False and skips that walk
    unused_parameters = True

    @abstractmethod
    def build_model(self, device: torch.device) -> torch.nn.Module:
        """The model with its starting weights, on `device`; frozen parts have requires_grad=False."""

    def trainable_parameters(self, model: torch.nn.Module) -> dict[str, torch.nn.Parameter]:
        """Name -> parameter of what the optimizer updates and checkpoints hold."""
        return {n: p for n, p in model.named_parameters() if p.requires_grad}

    @abstractmethod
    def num_examples(self) -> int:
        """Size of the training split; the harness draws sample indices in [0, num_examples)."""

    @abstractmethod
    def load_batch(self, indices: Sequence[int], device: torch.device) -> dict:
        """The training examples at `indices`, as tensors on `device`."""

    @abstractmethod
    def loss(self, model: torch.nn.Module, batch: dict, generator: torch.Generator) -> torch.Tensor:
        """Mean loss over the batch. All randomness must come from `generator`, which the
        harness seeds per (step, sample), so results do not depend on the worker count."""

    def shard_units(self, model: torch.nn.Module) -> list[torch.nn.Module]:
        """Submodules FSDP shards (and gathers) one at a time, e.g. transformer blocks; each must
        be called through its own forward. With none, the whole model is one unit."""
        return []

    def flops_per_sample(self) -> float | None:
        """Training FLOPs (forward + backward) of one example, for the MFU estimate."""
        return None

    def validate(self, model: torch.nn.Module, out_dir: str, device: torch.device) -> list[dict]:
        """Write validation images into `out_dir`; returns rows {"label", "image", ...} for the report."""
        return []

    def save_weights(self, model: torch.nn.Module, path: str) -> None:
        """Only the trainable weights, as safetensors. Under FSDP every worker calls this (the
        weights are gathered from their shards) and only rank 0's file is kept."""
        state = {n: full(p).detach().cpu().contiguous() for n, p in self.trainable_parameters(model).items()}
        save_file(state, path)

    def load_weights(self, model: torch.nn.Module, path: str) -> None:
        """Load what `save_weights` wrote; missing or unexpected names are an error naming them."""
        state = load_file(path)
        load_named(self.trainable_parameters(model), state, os.path.basename(path))


def cpu_copy(model: torch.nn.Module, fresh: torch.nn.Module) -> torch.nn.Module:
    """`fresh` (a new CPU model of the same configuration) holding `model`'s weights, for
    validating on the driver's side of a worker; `model` may be wrapped (DDP's `.module`)."""
    model = getattr(model, "module", model)
    fresh.load_state_dict({k: v.detach().cpu() for k, v in model.state_dict().items()})
    return fresh


def load_named(params: dict[str, torch.nn.Parameter], state: dict[str, torch.Tensor], source: str) -> None:
    """Copy `state` into `params` exactly, or raise naming the missing/unexpected/mis-shaped keys."""
    missing = sorted(set(params) - set(state))
    unexpected = sorted(set(state) - set(params))
    shapes = [
        f"{k}: {tuple(state[k].shape)} vs {tuple(params[k].shape)}"
        for k in sorted(set(params) & set(state))
        if state[k].shape != params[k].shape
    ]
    if missing or unexpected or shapes:
        raise KeyError(
            f"{source}: weights do not match the model; missing {_few(missing)}, "
            f"unexpected {_few(unexpected)}, wrong shape {_few(shapes)}"
        )
    with torch.no_grad():
        for name, param in params.items():
            param.copy_(state[name].to(param.dtype))


def _few(names: Iterable[str], limit: int = 8) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return f"[{shown}{f', ... ({len(names)} in all)' if len(names) > limit else ''}]"
