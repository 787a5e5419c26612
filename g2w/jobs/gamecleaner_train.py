"""The GameCleaner training job: a precache in, a run folder out, through the shared harness.

Writes RUN/weights.safetensors (a g2w GameCleaner checkpoint: adapters, PE_src, gamma, reference
embedder, connector, queries), RUN/summary.json, RUN/report.html (loss curve, before/after frames
of the held-out pair) and Ray Train checkpoints; rerunning with the same RUN resumes.
`parallel="fsdp"` shards the model with FSDP2 (for 14B; see g2w.train.sharding).
"""

from __future__ import annotations

from g2w.models.gamecleaner.task import GameCleanerTask
from g2w.runtime.train import run_fit
from g2w.train import FitConfig


def run_train(cache: str, output: str, preset: str = "tiny", checkpoint: str | None = None, base_dir: str | None = None,
              num_workers: int = 1, use_gpu: bool = False, steps: int = 3000, global_batch: int = 32, lr: float = 1e-4,
              checkpoint_every: int = 100, skip_errors: bool = False, max_failures: int = 2, seed: int = 0,
              cpus_per_worker: float = 1.0, lr_schedule: str = "constant", warmup_steps: int = 0, parallel: str = "ddp",
              validation_pairs: int = 1) -> dict:
    task = GameCleanerTask(cache, checkpoint, base_dir, preset, seed, skip_errors, gradient_checkpointing=use_gpu,
                           validation_pairs=validation_pairs)
    if task.skipped:
        print(f"gamecleaner train: skipping {task.skipped} error rows of {cache}", flush=True)
    cfg = FitConfig(output, steps=steps, global_batch=global_batch, lr=lr, num_workers=num_workers, use_gpu=use_gpu,
                    checkpoint_every=checkpoint_every, max_failures=max_failures, seed=seed,
                    cpus_per_worker=cpus_per_worker, lr_schedule=lr_schedule, warmup_steps=warmup_steps, parallel=parallel)
    summary = run_fit(task, cfg)
    summary["skipped_error_rows"] = task.skipped
    return summary
