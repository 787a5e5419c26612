"""The training loop every worker runs: plain torch, no Ray.

Per optimizer step a worker runs its micro-batches (see `g2w.train.schedule`), averaging
gradients over accumulation steps and, under DDP, over workers, so 2 workers x 1 micro-batch
and 1 worker x 2 accumulation steps take the same step. Parameters that received no gradient
get a zero one, so AdamW treats them identically whichever way the batch was split.
With `parallel="fsdp"` the model is sharded with FSDP2 (`g2w.train.sharding`) instead of
replicated under DDP; the arithmetic of a step is the same. The next micro-batch loads on a
background thread while the current one computes (`g2w.train.prefetch`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
from typing import Any, cast

import torch
import torch.distributed as dist
from torch.distributed.fsdp import FSDPModule
from torch.nn.parallel import DistributedDataParallel

from g2w.train import checkpoint, prefetch, schedule, sharding
from g2w.train.config import FitConfig
from g2w.train.session import Session
from g2w.train_task import TrainTask, full

log = logging.getLogger(__name__)

# Dense bf16 peak per device (vendor data sheets), for the MFU estimate.
PEAK_TFLOPS = {"H200": 989.0, "H100": 989.0, "A100": 312.0, "L40S": 362.0, "A10G": 125.0, "L4": 121.0}


def peak_flops(cfg: FitConfig, device: torch.device) -> float | None:
    if cfg.peak_tflops:
        return cfg.peak_tflops * 1e12
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    return next((tf * 1e12 for key, tf in PEAK_TFLOPS.items() if key in name), None)


def _autocast(cfg: FitConfig, device: torch.device):
    if device.type == "cuda" and cfg.precision == "bf16":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def train_worker(task: TrainTask, cfg: FitConfig, session: Session) -> dict:
    """Train until `cfg.steps`, resuming from the session's latest checkpoint; returns the last metrics."""
    rank, world, device = session.rank, session.world_size, session.device
    torch.manual_seed(cfg.seed + rank)  # for randomness the task does not draw from its generator
    model = task.build_model(device)
    fsdp = cfg.parallel == "fsdp"
    if fsdp:
        if not dist.is_initialized():
            raise ValueError(
                "parallel='fsdp' needs a process group: train through g2w.runtime.train.run_fit (Ray Train)"
            )
        sharding.shard(model, task.shard_units(model))
    params = task.trainable_parameters(model)  # after sharding: FSDP swaps in sharded parameters
    optimizer = torch.optim.AdamW(params.values(), lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay)
    state: dict[str, Any] = {"step": 0, "history": []}
    with session.latest_checkpoint() as ckpt:
        if ckpt:
            state = checkpoint.restore(ckpt, task, model, optimizer, rank, sharded=fsdp)
            log.info(f"[train] resuming {task.name} at step {state['step']} from {ckpt}")
    distributed = world > 1
    ddp = distributed and not fsdp
    runner = DistributedDataParallel(model, find_unused_parameters=task.unused_parameters) if ddp else model
    accumulation = cfg.accumulation()
    n = task.num_examples()
    peak = peak_flops(cfg, device)
    flops = task.flops_per_sample()
    history, last = state["history"], {}
    plan = (
        (step, indices, seed)
        for step in range(state["step"], cfg.steps)
        for indices, seed in schedule.micro_batches(cfg.seed, step, cfg.global_batch, cfg.micro_batch, n, rank, world)
    )
    with contextlib.closing(prefetch.prefetched(plan, lambda m: task.load_batch(m[1].tolist(), device))) as batches:
        for step in range(state["step"], cfg.steps):
            start = time.perf_counter()
            lr = schedule.learning_rate(cfg.lr, step, cfg.warmup_steps, cfg.steps, cfg.lr_schedule, cfg.lr_floor)
            for group in optimizer.param_groups:
                group["lr"] = lr
            total = torch.zeros((), device=device)
            for i in range(accumulation):  # this worker's micro-batches of the step, loaded one ahead
                (planned, _, seed), batch = next(batches)
                assert planned == step
                generator = torch.Generator(device).manual_seed(seed)
                sync = not distributed or i == accumulation - 1
                if fsdp:  # reduce-scatter gradients only after the last micro-batch, like DDP's no_sync
                    cast(FSDPModule, model).set_requires_gradient_sync(sync)
                with (
                    cast(DistributedDataParallel, runner).no_sync() if ddp and not sync else contextlib.nullcontext(),
                    _autocast(cfg, device),
                ):
                    loss = task.loss(runner, batch, generator)
                    (loss / accumulation).backward()
                total += loss.detach().float()
            for p in params.values():
                if p.grad is None:
                    p.grad = torch.zeros_like(p)
            grad_norm = torch.nn.utils.clip_grad_norm_(
                params.values(), cfg.grad_clip if cfg.grad_clip > 0 else float("inf")
            )
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if distributed:
                dist.all_reduce(total)
            seconds = time.perf_counter() - start
            samples_per_s = cfg.global_batch / seconds
            last = {
                "step": step + 1,
                "loss": float(total) / (accumulation * world),
                "lr": lr,
                "grad_norm": float(full(grad_norm)),
                "samples_per_s": round(samples_per_s, 3),
                "mfu": round(flops * samples_per_s / (peak * world), 4) if flops and peak else None,
            }
            history.append(last)
            done = step + 1 == cfg.steps
            if done or (step + 1) % cfg.checkpoint_every == 0:
                _checkpoint(task, cfg, model, optimizer, session, history, last, done, fsdp)
            elif (step + 1) % cfg.log_every == 0:
                session.report(last, None)
            if rank == 0 and ((step + 1) % cfg.log_every == 0 or done):
                log.info(
                    f"[train] {task.name} step {last['step']}/{cfg.steps} loss {last['loss']:.5f} lr {lr:.2e} "
                    f"{last['samples_per_s']} samples/s" + (f" mfu {last['mfu']:.1%}" if last["mfu"] else "")
                )
    return last


def _checkpoint(task, cfg, model, optimizer, session, history, metrics, final, fsdp) -> None:
    with tempfile.TemporaryDirectory(prefix="g2w-ckpt-") as tmp:
        state = {"step": metrics["step"], "history": history, "config": cfg.to_dict(), "task": task.name}
        if final and (session.rank == 0 or fsdp):  # a sharded forward needs every rank; rank 0's is kept
            # under the step's autocast: a bf16 base would not run outside it, and sampling should see
            # the numerics training did
            with (
                sharding.rank0_path(os.path.join(tmp, "validation"), session.rank) as out,
                _autocast(cfg, session.device),
            ):
                state["validation"] = task.validate(model, out, session.device)
        checkpoint.save(tmp, task, model, optimizer, state, session.rank, sharded=fsdp)
        session.report(metrics, tmp)
