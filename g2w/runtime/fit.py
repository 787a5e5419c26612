"""A minimal training loop on Ray Train (V2 `TorchTrainer`) for any task object.

The task protocol (as the shared harness in `g2w/train/` defines it): `build_model()`,
`trainable_parameters(model)`, `load(rank, world)`, `batch()`, `loss_step(model, batch) ->
(loss, logs)` and `validate(model) -> metrics`. Workers train with DDP when there is more than
one, report loss, learning rate and samples per second every `log_every` steps, and validate and
checkpoint (model through `save_pretrained`, optimizer, step and RNG state) every `eval_every`
steps through `ray.train.report`, so a killed run resumes from its last checkpoint. The driver
gets back the last checkpoint folder and the reported history.
"""

from __future__ import annotations

import json
import os
import pickle
import random
import tempfile
import time
from dataclasses import asdict, dataclass

import numpy as np
import ray.train
import torch
from ray.train import Checkpoint, CheckpointConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchTrainer

from g2w.runtime.ray_init import init_ray

STATE = "trainer_state.pt"
HISTORY = "history.json"


@dataclass(frozen=True)
class FitConfig:
    steps: int = 2000
    eval_every: int = 250
    log_every: int = 25
    workers: int = 1
    threads_per_worker: int = 2
    use_gpu: bool = False
    warmup: int = 50
    name: str = "run"


def _rng_state() -> bytes:
    return pickle.dumps((random.getstate(), np.random.get_state(), torch.get_rng_state()))


def _set_rng_state(state: bytes) -> None:
    py, np_state, torch_state = pickle.loads(state)
    random.setstate(py)
    np.random.set_state(np_state)
    torch.set_rng_state(torch_state)


def _loop(config: dict) -> None:
    task, cfg = config["task"], FitConfig(**config["cfg"])
    torch.set_num_threads(cfg.threads_per_worker)
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    task.load(rank, world)
    model = task.build_model()
    optimizer = torch.optim.AdamW(task.trainable_parameters(model), lr=task.lr, weight_decay=1e-4)
    start, history = 0, []
    checkpoint = ray.train.get_checkpoint()
    if checkpoint:
        with checkpoint.as_directory() as d:
            model = type(model).from_pretrained(d)
            model.train()
            optimizer = torch.optim.AdamW(task.trainable_parameters(model), lr=task.lr, weight_decay=1e-4)
            state = torch.load(os.path.join(d, STATE), weights_only=False)
            optimizer.load_state_dict(state["optimizer"])
            start = state["step"]
            _set_rng_state(state["rng"])
            task._rng = pickle.loads(state["task_rng"])
            with open(os.path.join(d, HISTORY)) as f:
                history = json.load(f)
    net = ray.train.torch.prepare_model(model) if world > 1 else model
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / cfg.warmup) * 0.5 * (
        1 + np.cos(np.pi * min(1.0, s / cfg.steps))), last_epoch=start - 1)
    tick, seen = time.perf_counter(), 0
    for step in range(start, cfg.steps):
        batch = task.batch()
        loss, logs = task.loss_step(net, batch)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        seen += len(batch[0]) * world
        done = step + 1
        if done % cfg.eval_every == 0 or done == cfg.steps:
            metrics = {"step": done, "loss": float(loss), **logs, "lr": schedule.get_last_lr()[0]}
            metrics.update({f"val_{k}": v for k, v in task.validate(model).items()} if rank == 0 else {})
            history.append(metrics)
            with tempfile.TemporaryDirectory() as d:
                if rank == 0:
                    model.save_pretrained(d)
                    with open(os.path.join(d, HISTORY), "w") as f:
                        json.dump(history, f)
                    torch.save({"optimizer": optimizer.state_dict(), "step": done, "rng": _rng_state(),
                                "task_rng": pickle.dumps(task._rng)}, os.path.join(d, STATE))
                ray.train.report(metrics, checkpoint=Checkpoint.from_directory(d) if rank == 0 else None)
        elif done % cfg.log_every == 0:
            now = time.perf_counter()
            history.append({"step": done, "loss": float(loss), **logs, "lr": schedule.get_last_lr()[0],
                            "samples_per_s": round(seen / (now - tick), 2)})
            ray.train.report(history[-1])
            if rank == 0:
                print(json.dumps(history[-1]), flush=True)
            tick, seen = now, 0


def fit(task, cfg: FitConfig, output: str) -> tuple[str, list[dict]]:
    """Train `task` on Ray Train; returns (the last checkpoint's local folder, its history of
    logged and validation records). Rerunning with the same `output` resumes."""
    init_ray()
    output = os.path.abspath(output)
    trainer = TorchTrainer(
        _loop, train_loop_config={"task": task, "cfg": asdict(cfg)},
        scaling_config=ScalingConfig(num_workers=cfg.workers, use_gpu=cfg.use_gpu,
                                     resources_per_worker={"CPU": 1}),
        run_config=RunConfig(name=cfg.name, storage_path=os.path.join(output, "ray"),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    folder = result.checkpoint.to_directory(os.path.join(output, "checkpoint"))
    with open(os.path.join(folder, HISTORY)) as f:
        return folder, json.load(f)
