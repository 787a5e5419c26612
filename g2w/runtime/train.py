"""Ray Train glue for the harness: `run_fit` runs `g2w.train.loop.train_worker` on a Ray Train
V2 `TorchTrainer` (gloo on CPU, NCCL on GPU), and writes the run's summary and report.

The run folder is Ray Train's storage (`storage_path/name`), so rerunning with the same output
finds Ray's checkpoint record there and every worker resumes from the latest checkpoint;
`FailureConfig(max_failures)` restarts failed workers the same way within one run. The driver
reads only the final checkpoint (through Ray's filesystem layer, so `s3://` works) and never a
worker's disk.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile

import pyarrow.fs as pafs
import ray.train
import ray.train.torch
from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchTrainer

from g2w.io.storage import is_uri
from g2w.runtime.logs import configure, is_verbose
from g2w.runtime.ray_init import init_ray
from g2w.train import checkpoint
from g2w.train.config import FitConfig
from g2w.train.loop import train_worker
from g2w.train.run_page import write_report
from g2w.train_task import TrainTask

log = logging.getLogger(__name__)


class RaySession:
    """The `g2w.train.session.Session` of one Ray Train worker."""

    def __init__(self):
        context = ray.train.get_context()
        self.rank = context.get_world_rank()
        self.world_size = context.get_world_size()
        self.device = ray.train.torch.get_device()

    def latest_checkpoint(self):
        found = ray.train.get_checkpoint()
        return found.as_directory() if found else _none()

    def report(self, metrics: dict, checkpoint_dir: str | None) -> None:
        saved = ray.train.Checkpoint.from_directory(checkpoint_dir) if checkpoint_dir else None
        ray.train.report({k: v for k, v in metrics.items() if v is not None}, checkpoint=saved)


class _none:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _worker(config: dict) -> None:
    configure(config["verbose"])  # a worker process: its step lines reach its log (and the driver when verbose)
    train_worker(config["task"], config["cfg"], RaySession())


def _split(output: str) -> tuple[str, str]:
    output = output.rstrip("/")
    if not is_uri(output):
        output = os.path.abspath(output)
    parent, name = output.rsplit("/", 1)
    return parent, name


def run_fit(task: TrainTask, cfg: FitConfig) -> dict:
    """Train on Ray Train; writes OUTPUT/{summary.json, report.html, weights.safetensors}."""
    cfg.validate()
    init_ray(output=cfg.output)
    storage, name = _split(cfg.output)
    trainer = TorchTrainer(
        _worker,
        train_loop_config={"task": task, "cfg": cfg, "verbose": is_verbose()},
        scaling_config=ScalingConfig(
            num_workers=cfg.num_workers,
            use_gpu=cfg.use_gpu,
            resources_per_worker={"CPU": cfg.cpus_per_worker, **({"GPU": 1} if cfg.use_gpu else {})},
        ),
        run_config=RunConfig(
            name=name,
            storage_path=storage,
            failure_config=FailureConfig(max_failures=cfg.max_failures),
            checkpoint_config=CheckpointConfig(num_to_keep=cfg.keep_checkpoints),
        ),
    )
    result = trainer.fit()
    if result.checkpoint is None:
        raise RuntimeError(f"training {task.name} ended without a checkpoint in {cfg.output}")
    with result.checkpoint.as_directory() as ckpt, tempfile.TemporaryDirectory(prefix="g2w-run-") as out:
        state = checkpoint.read_state(ckpt)
        history = state["history"]
        summary = {
            "task": task.name,
            "steps": state["step"],
            "final_loss": history[-1]["loss"] if history else None,
            "first_loss": history[0]["loss"] if history else None,
            "mean_samples_per_s": _mean(h["samples_per_s"] for h in history),
            "mean_mfu": _mean(h["mfu"] for h in history if h.get("mfu") is not None),
            "num_workers": cfg.num_workers,
            "checkpoint": _location(cfg.output, result.checkpoint.path),
            "config": cfg.to_dict(),
        }
        shutil.copy(os.path.join(ckpt, checkpoint.WEIGHTS), os.path.join(out, checkpoint.WEIGHTS))
        validation = state.get("validation", [])
        if os.path.isdir(os.path.join(ckpt, "validation")):
            shutil.copytree(os.path.join(ckpt, "validation"), os.path.join(out, "validation"))
        with open(os.path.join(out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
        with open(os.path.join(out, "history.json"), "w") as f:
            json.dump(history, f)
        write_report(out, summary, history, validation)
        _publish(out, cfg.output)
    log.info(
        f"[train] {task.name}: {summary['steps']} steps, loss {summary['first_loss']} -> {summary['final_loss']}\n"
        f"run:     {cfg.output}\nreport:  {os.path.join(cfg.output, 'report.html')}"
    )
    return summary


def _location(output: str, path: str) -> str:
    """Ray names a checkpoint by its path inside the filesystem (`bucket/prefix/...`); give it
    back the output's scheme so the summary names a URI that can be opened."""
    return f"{output.split('://', 1)[0]}://{path}" if is_uri(output) and not is_uri(path) else path


def _mean(values) -> float | None:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else None


def _publish(local_dir: str, output: str) -> None:
    """Copy the run's report files into OUTPUT (a local folder or a bucket prefix)."""
    if is_uri(output):
        fs, inner = pafs.FileSystem.from_uri(output)
        pafs.copy_files(local_dir, inner, destination_filesystem=fs)
        return
    shutil.copytree(local_dir, output, dirs_exist_ok=True)
