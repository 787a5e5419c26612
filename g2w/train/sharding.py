"""FSDP2 for models too large to replicate on every worker (GameCleaner 14B).

`shard` applies `torch.distributed.fsdp.fully_shard` to the task's units (e.g. the DiT blocks),
then to the whole model, so every parameter, gradient and optimizer state is split across the
workers and gathered one unit at a time. Gradients are averaged over workers like DDP's, so the
harness's batch arithmetic is unchanged. FSDP2 has no `find_unused_parameters`: each forward must
use every trainable parameter on every worker (a task feeds a zero input rather than skipping a
branch), or the workers' gradient reductions no longer match. Parameters are gathered in the
dtype they are stored in and the step's autocast picks each op's dtype, exactly as without FSDP
(see `mixed_precision`).

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


def mixed_precision():
    """FSDP2's precision policy: gather every parameter in the dtype it is stored in, reduce
    gradients in fp32.

    A task's model already holds its weights in the dtypes its forward wants (GameCleaner: a bf16
    base, the fp32 modules diffusers keeps in `_keep_in_fp32_modules`, fp32 LoRA) and the harness
    runs the step under autocast, as it does without FSDP. A bf16 `param_dtype` would instead
    gather the fp32-kept norms, modulation tables and time embedder as bf16, and its input cast
    would round every floating input of each unit to bf16: the flow time t at the model's root
    and the RoPE tables at each block, which nowhere else leave fp32. Gathering fp32 LoRA costs
    little beside the bf16 base.
    """
    from torch.distributed.fsdp import MixedPrecisionPolicy

    return MixedPrecisionPolicy(param_dtype=None, reduce_dtype=torch.float32)


def shard(model: torch.nn.Module, units: Sequence[torch.nn.Module]) -> None:
    """Shard `units` one by one, then the rest of `model` (see `mixed_precision`)."""
    from torch.distributed.fsdp import fully_shard

    policy = mixed_precision()
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
