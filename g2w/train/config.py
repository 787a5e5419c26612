"""The settings of one training run, shared by every task."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from g2w.train.schedule import LR_SCHEDULES


@dataclass
class FitConfig:
    """How to train. `global_batch` is split as num_workers x micro_batch x accumulation steps.

    `output` is the run folder (local path or `s3://`): checkpoints, `summary.json` and
    `report.html` go there, and rerunning with the same output resumes at its last checkpoint.
    """

    output: str
    steps: int = 100
    global_batch: int = 8
    micro_batch: int = 1
    lr: float = 1e-4
    weight_decay: float = 0.01
    betas: tuple[float, float] = (0.9, 0.999)
    warmup_steps: int = 0
    # After warm-up: "constant" (the default: the paper gives GameCleaner one rate, 1e-4, and no
    # schedule, and it keeps runs trained before this option reproducible) or "cosine", which
    # falls to lr_floor x lr at the last step. Cosine follows `steps`, so resuming with a larger
    # `steps` reshapes the rest of the curve.
    lr_schedule: str = "constant"
    lr_floor: float = 0.1
    grad_clip: float = 1.0  # 0 disables clipping
    num_workers: int = 1
    use_gpu: bool = False
    cpus_per_worker: float = 1.0
    precision: str = "bf16"  # autocast dtype on GPU; CPU runs in fp32 whatever this says
    parallel: str = "ddp"  # "ddp" (replicas) or "fsdp" (FSDP2 shards; see g2w.train.sharding)
    checkpoint_every: int = 50
    keep_checkpoints: int = 2
    log_every: int = 1
    max_failures: int = 0
    seed: int = 0
    peak_tflops: float | None = None  # per device, for the MFU estimate; None: looked up by device

    def accumulation(self) -> int:
        """Micro-batches each worker runs per optimizer step."""
        per_step = self.num_workers * self.micro_batch
        if self.global_batch % per_step:
            raise ValueError(
                f"global_batch {self.global_batch} is not a multiple of num_workers x micro_batch = {per_step}"
            )
        return self.global_batch // per_step

    def validate(self) -> None:
        self.accumulation()
        if self.steps < 1 or self.checkpoint_every < 1 or self.log_every < 1:
            raise ValueError("steps, checkpoint_every and log_every must be >= 1")
        if self.lr_schedule not in LR_SCHEDULES:
            raise ValueError(f"lr_schedule={self.lr_schedule!r}: one of {LR_SCHEDULES}")
        if not 0.0 <= self.lr_floor <= 1.0:
            raise ValueError(f"lr_floor={self.lr_floor} must be in [0, 1]")
        if self.parallel not in ("ddp", "fsdp"):
            raise ValueError(f"parallel={self.parallel!r}: one of 'ddp', 'fsdp'")

    def to_dict(self) -> dict:
        return asdict(self)
