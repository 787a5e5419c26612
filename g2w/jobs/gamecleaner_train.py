"""The GameCleaner training job: a precache in, a run folder out, through the shared harness.

Writes RUN/weights.safetensors (a g2w GameCleaner checkpoint: adapters, PE_src, gamma, reference
embedder, connector, queries), RUN/summary.json, RUN/report.html (loss curve, before/after frames
of the held-out pair) and Ray Train checkpoints; rerunning with the same RUN resumes.
`--parallel fsdp` shards the model with FSDP2 (for 14B; see g2w.train.sharding).
"""

from __future__ import annotations

import logging

from g2w.jobs.options import GameCleanerTrainOptions
from g2w.models.gamecleaner.task import GameCleanerTask
from g2w.runtime.train import run_fit
from g2w.train import FitConfig

log = logging.getLogger(__name__)


def run_train(options: GameCleanerTrainOptions) -> dict:
    o = options
    task = GameCleanerTask(
        o.cache,
        o.checkpoint,
        o.base_dir,
        o.preset,
        o.seed,
        o.skip_errors,
        gradient_checkpointing=o.use_gpu,
        validation_pairs=o.validation_pairs,
        attention=o.attention,
        compile=o.compile,
    )
    if task.skipped:
        log.info(f"gamecleaner train: skipping {task.skipped} error rows of {o.cache}")
    cfg = FitConfig(
        o.output,
        steps=o.steps,
        global_batch=o.global_batch,
        lr=o.lr,
        num_workers=o.num_workers,
        use_gpu=o.use_gpu,
        checkpoint_every=o.checkpoint_every,
        max_failures=o.max_failures,
        seed=o.seed,
        cpus_per_worker=o.cpus_per_worker,
        lr_schedule=o.lr_schedule,
        warmup_steps=o.warmup_steps,
        parallel=o.parallel,
    )
    summary = run_fit(task, cfg)
    summary["skipped_error_rows"] = task.skipped
    return summary
