"""What a training checkpoint holds, and how a run resumes from one.

One folder per checkpoint: `weights.safetensors` (trainable weights only, via the task),
`optimizer.pt`, `state.json` (next step, metric history, the run's config) written by rank 0,
and `rng/rank<R>.pt` (torch, numpy and Python RNG states) written by every rank. Ray Train
merges the ranks' folders into one. Under FSDP (`sharded`) the weights and optimizer state to
resume from are DCP shards in `dcp/` (`g2w.train.sharding`) instead of `optimizer.pt`;
`weights.safetensors` is still written whole, gathered from the shards, for the run's users.
"""

from __future__ import annotations

import json
import os
import random

import numpy as np
import torch

from g2w.train import sharding
from g2w.train_task import TrainTask

WEIGHTS = "weights.safetensors"
STATE = "state.json"


def save(
    ckpt_dir: str,
    task: TrainTask,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    state: dict,
    rank: int,
    sharded: bool = False,
) -> None:
    os.makedirs(os.path.join(ckpt_dir, "rng"), exist_ok=True)
    torch.save(_rng_state(), os.path.join(ckpt_dir, "rng", f"rank{rank}.pt"))
    if sharded:  # gathering the weights and writing DCP shards are collectives: every rank takes part
        with sharding.rank0_path(os.path.join(ckpt_dir, WEIGHTS), rank) as path:
            task.save_weights(model, path)
        sharding.save(ckpt_dir, model, optimizer)
    if rank != 0:
        return
    if not sharded:
        task.save_weights(model, os.path.join(ckpt_dir, WEIGHTS))
        torch.save(optimizer.state_dict(), os.path.join(ckpt_dir, "optimizer.pt"))
    with open(os.path.join(ckpt_dir, STATE), "w") as f:
        json.dump(state, f)


def restore(
    ckpt_dir: str,
    task: TrainTask,
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    rank: int,
    sharded: bool = False,
) -> dict:
    """Load weights, optimizer and this rank's RNG; returns the saved state (next step, history)."""
    if sharded:
        sharding.restore(ckpt_dir, model, optimizer)
    else:
        task.load_weights(model, os.path.join(ckpt_dir, WEIGHTS))
        optimizer.load_state_dict(torch.load(os.path.join(ckpt_dir, "optimizer.pt"), weights_only=False))
    rng = os.path.join(ckpt_dir, "rng", f"rank{rank}.pt")
    if os.path.exists(rng):  # a run resumed on more workers seeds its new ranks afresh
        _set_rng_state(torch.load(rng, weights_only=False))
    return read_state(ckpt_dir)


def read_state(ckpt_dir: str) -> dict:
    with open(os.path.join(ckpt_dir, STATE)) as f:
        return json.load(f)


def _rng_state() -> dict:
    state = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
