"""FSDP2 for models too large to replicate on every worker (GameCleaner 14B).

`shard` applies `torch.distributed.fsdp.fully_shard` to the task's units (e.g. the DiT blocks),
then to the whole model, so every parameter, gradient and optimizer state is split across the
workers and gathered one unit at a time. Gradients are averaged over workers like DDP's, so the
harness's batch arithmetic is unchanged. FSDP2 has no `find_unused_parameters`: each forward must
use every trainable parameter on every worker (a task feeds a zero input rather than skipping a
branch), or the workers' gradient reductions no longer match.

Checkpoints are sharded with `torch.distributed.checkpoint` (DCP): every worker writes its own
shard of the trainable weights and optimizer state into `dcp/` of its checkpoint folder and
rank 0 writes the metadata; Ray Train merges the workers' folders, and on resume every worker
reads its part (DCP reshards if the worker count changed). Frozen weights are not saved: they
come from `build_model` again. (FSDP and DCP are imported on use: they take seconds to import.)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

import torch

DCP_DIR = "dcp"


def shard(model: torch.nn.Module, units: Sequence[torch.nn.Module], device: torch.device) -> None:
    """Shard `units` one by one, then the rest of `model` (bf16 compute, fp32 reductions on GPU)."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    policy = (
        MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        if device.type == "cuda"
        else MixedPrecisionPolicy()
    )
    for unit in units:
        fully_shard(unit, mp_policy=policy)
    fully_shard(model, mp_policy=policy)


@contextlib.contextmanager
def rank0_path(path: str, rank: int) -> Iterator[str]:
    """`path` on rank 0; a scratch path elsewhere, for collective writers only rank 0 keeps."""
    if rank == 0:
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="g2w-scratch-") as scratch:
        yield os.path.join(scratch, os.path.basename(path))


def _options(load: bool):
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    # DCP loads exactly the trainable keys `get_state_dict` asked for (a missing one is an error);
    # the model-level load is then non-strict only because frozen weights are deliberately absent.
    return StateDictOptions(ignore_frozen_params=True, strict=not load)


def save(ckpt_dir: str, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict

    model_state, optim_state = get_state_dict(model, optimizer, options=_options(load=False))
    dcp.save({"model": model_state, "optim": optim_state}, checkpoint_id=os.path.join(ckpt_dir, DCP_DIR))


def restore(ckpt_dir: str, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

    path = os.path.join(ckpt_dir, DCP_DIR)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{ckpt_dir} has no {DCP_DIR}/: it was not written with parallel='fsdp'")
    model_state, optim_state = get_state_dict(model, optimizer, options=_options(load=False))
    state: dict[str, Any] = {"model": model_state, "optim": optim_state}
    dcp.load(state, checkpoint_id=path)
    set_state_dict(
        model, optimizer, model_state_dict=state["model"], optim_state_dict=state["optim"], options=_options(load=True)
    )
