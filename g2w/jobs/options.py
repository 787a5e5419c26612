"""The options of the jobs that take them as one dataclass: the job function takes an instance,
and `g2w.option_flags` turns its fields into the flags of `g2w <job>` and `python -m ray_jobs.<job>`.

Kept apart from the jobs so that building the `g2w` parser stays cheap (no torch, no Ray).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from g2w.models.gamecleaner.presets import PRESETS
from g2w.option_flags import flag_name, option, positive
from g2w.remove import DEFAULT_METHOD, METHODS
from g2w.train.schedule import LR_SCHEDULES

PAIRS_HELP = "synthesis outputs, g2w capture corpora, or single pair folders (hud.mp4, mask.mkv, annotation.json)"


@dataclass
class SegmenterTrainOptions:
    """`g2w hud-segmenter train`: the UI segmenter on synthesized and captured pairs."""

    data: list[str] = field(metadata=option(PAIRS_HELP, nargs="+", metavar="PAIRS"))
    val: list[str] = field(
        metadata=option(
            "held-out pairs of the same kinds (other clips and demos, another asset library)",
            nargs="+",
            metavar="PAIRS",
        )
    )
    output: str = field(metadata=option("run folder (rerun with the same one to resume)", metavar="RUN"))
    steps: int = field(default=2000, metadata=option(type=positive(int)))
    eval_every: int = field(
        default=250,
        metadata=option("checkpoint every N steps (held-out validation runs at the end)", type=positive(int)),
    )
    batch_size: int = field(default=16, metadata=option(type=positive(int)))
    crop: int = field(default=160, metadata=option("training crop, pixels at model resolution", type=positive(int)))
    seed: int = 0
    lr_schedule: str = field(
        default="cosine",
        metadata=option(
            "after the warm-up: cosine decay to a tenth of the rate, or constant", choices=("cosine", "constant")
        ),
    )
    init: str | None = field(
        default=None,
        metadata=option(
            "fine-tune: start from this segmenter folder's weights and config (e.g. g2w/weights)", metavar="CKPT"
        ),
    )
    lr: float | None = field(default=None, metadata=option("peak learning rate (default 3e-3)", type=positive(float)))
    element_weight: float = field(
        default=0.0,
        metadata=option(
            "add this x the per-element loss (each labelled widget of a crop counts alike, whatever its size)"
        ),
    )
    static_world_weight: float = field(
        default=0.0,
        metadata=option(
            "extra BCE weight on world pixels that look static (low spread, at the median) away from UI: held weapon "
            "sprites, cockpits"
        ),
    )
    anchored_negatives: float = field(
        default=0.0,
        metadata=option(
            "give this share of training examples a screen-anchored world object (a bobbing, scene-lit first-person "
            "weapon or vehicle made of world texture) as a hard negative",
            metavar="P",
        ),
    )
    num_workers: int = field(
        default=1, metadata=option("Ray Train workers (--batch-size must be a multiple)", type=positive(int))
    )
    text_channel: bool = field(
        default=False,
        metadata=option(
            "give the network the OCR text-proposal map as one more input plane (with --init from a checkpoint "
            "without it, the new plane starts at zero weight)"
        ),
    )
    widths: list[int] | None = field(
        default=None,
        metadata=option(
            "channels per U-Net level, each level halving the size (default 16 32 64 96; not with --init)",
            nargs="+",
            type=positive(int),
            metavar="C",
        ),
    )
    cache: str | None = field(
        default=None,
        metadata=option(
            "folder of decoded training samples (default RUN/cache); runs over the same pairs can share one",
            metavar="DIR",
        ),
    )


@dataclass
class RefinerTrainOptions:
    """`g2w hud-segmenter train-refiner`: the full-resolution mask refiner of a segmenter checkpoint."""

    data: list[str] = field(metadata=option("pairs, as for train", nargs="+", metavar="PAIRS"))
    val: list[str] = field(metadata=option("held-out pairs, as for train", nargs="+", metavar="PAIRS"))
    output: str = field(metadata=option("run folder", metavar="RUN"))
    checkpoint: str | None = field(default=None, metadata=option("segmenter folder (default: the shipped g2w/weights)"))
    steps: int = field(default=1500, metadata=option(type=positive(int)))
    eval_every: int = field(default=500, metadata=option("checkpoint every N steps", type=positive(int)))
    batch_size: int = field(default=16, metadata=option("pairs per step (8 tiles each)", type=positive(int)))
    seed: int = 0
    width: int = field(default=8, metadata=option("channels of the hidden convolutions", type=positive(int)))
    window_max: bool = field(
        default=False, metadata=option("add the window's temporal maximum of the coarse probability to the evidence")
    )
    dilations: list[int] = field(
        default_factory=lambda: [1, 2, 1],
        metadata=option(
            "one 3x3 convolution per entry, with this dilation (their sum: the context, at most 8)",
            type=positive(int),
            nargs="+",
        ),
    )
    iou_weight: float = field(default=0.0, metadata=option("loss = BCE + this x (1 - soft IoU)"))
    real_share: float = field(
        default=0.0,
        metadata=option("draw about this share of examples from captured (real) pairs, whatever their count"),
    )

    def refiner(self) -> dict:
        """The FullResRefinerConfig fields these options set."""
        return {"width": self.width, "window_max": self.window_max, "dilations": list(self.dilations)}


@dataclass
class PrecacheOptions:
    """`g2w gamecleaner precache`: VAE latents and the frozen condition of synthesis pairs."""

    pairs: list[str] = field(metadata=option("synthesis output folder(s)", nargs="+"))
    output: str = field(metadata=option("cache folder (rerun with the same one to resume)"))
    preset: str = field(default="tiny", metadata=option("model size", choices=tuple(PRESETS)))
    checkpoint: str | None = field(
        default=None, metadata=option("g2w weights the run will start from (then the connector output is cached)")
    )
    base_dir: str | None = field(
        default=None,
        metadata=option("Wan folder in diffusers layout (transformer/, vae/); default: random init", flag="--base"),
    )
    mllm_dir: str | None = field(
        default=None, metadata=option("Qwen2.5-VL folder in transformers layout", flag="--mllm")
    )
    seed: int = 0


@dataclass
class GameCleanerTrainOptions:
    """`g2w gamecleaner train`: GameCleaner on a precache with Ray Train (resumes on rerun)."""

    cache: str = field(metadata=option("a g2w gamecleaner precache folder, or its copy in a bucket (s3://...)"))
    output: str = field(metadata=option("run folder (local or s3://)"))
    preset: str = field(default="tiny", metadata=option("model size", choices=tuple(PRESETS)))
    checkpoint: str | None = field(
        default=None, metadata=option("start from these g2w weights (MLLM, queries, connector frozen)")
    )
    base_dir: str | None = field(
        default=None, metadata=option("Wan folder in diffusers layout; default: random init", flag="--base")
    )
    num_workers: int = field(default=1, metadata=option("Ray Train workers", type=positive(int)))
    use_gpu: bool = field(default=False, metadata=option("one GPU per worker"))
    parallel: str = field(
        default="ddp",
        metadata=option(
            "ddp: a model replica per worker (1.3B, 5B); fsdp: FSDP2 shards across workers (14B)",
            choices=("ddp", "fsdp"),
        ),
    )
    steps: int = field(default=3000, metadata=option(type=positive(int)))
    global_batch: int = field(default=32, metadata=option(type=positive(int)))
    lr: float = 1e-4
    lr_schedule: str = field(
        default="constant",
        metadata=option(
            "after warm-up: constant (the paper's setting) or cosine down to 0.1 x lr", choices=LR_SCHEDULES
        ),
    )
    warmup_steps: int = 0
    checkpoint_every: int = field(default=100, metadata=option(type=positive(int)))
    max_failures: int = field(default=2, metadata=option("worker failures Ray Train recovers from"))
    skip_errors: bool = field(default=False, metadata=option("train on the ok rows of a cache with error rows"))
    validation_pairs: int = field(
        default=1, metadata=option("last ok pairs of the cache held out for the report's before/after frames")
    )
    seed: int = 0
    cpus_per_worker: float = field(
        default=1.0, metadata=option("CPUs each Ray Train worker asks for", type=positive(float))
    )
    attention: str | None = field(
        default=None,
        metadata=option(
            "diffusers attention backend of the DiT (default: diffusers' own, native SDPA); on CPU native, "
            "_native_flash, _native_math or flex",
            metavar="BACKEND",
        ),
    )
    compile: bool = field(
        default=False, metadata=option("torch.compile the DiT's blocks (regional), before the DDP/FSDP wrap")
    )


@dataclass
class DetectOptions:
    """`g2w detect`: the UI segmenter over videos on Ray Data."""

    videos: list[str] = field(
        metadata=option("video files, folders, globs or lists", nargs="+", metavar="VIDEO", positional=True)
    )
    output: str = field(metadata=option("output folder (rerun with the same one to resume)", metavar="OUT"))
    checkpoint: str | None = field(default=None, metadata=option("segmenter folder (default: the shipped g2w/weights)"))


MASK_CHOICE_METHODS = (
    "telea",
    "propagate",
    "unblend+propagate",
)  # removers whose mask may come from the segmenter or the truth


@dataclass
class RemoveOptions:
    """`g2w remove`: one removal method over cases on Ray Data. The fields after `method` are
    the method's options (only those set are passed on); a combination the method cannot use is refused
    here, before any work."""

    cases: str = field(metadata=option("synthesis output folder or wild-cases JSONL"))
    output: str = field(metadata=option("output folder (rerun with the same one to resume)"))
    method: str = field(
        default=DEFAULT_METHOD,
        metadata=option("removal method (mask-free, translucent layers un-blended)", choices=tuple(METHODS)),
    )
    mask: str | None = field(
        default=None,
        metadata=option(
            "UI mask for telea/propagate: the learned segmenter (default) or the ground truth",
            choices=("segmenter", "gt"),
        ),
    )
    mask_rules: str | None = field(
        default=None,
        metadata=option(
            "telea/propagate with the segmenter's mask: its rules, in order (comma-separated name[:value]; default "
            "centre_mark,still_detail; 'none': the refined mask alone)"
        ),
    )
    checkpoint: str | None = field(default=None, metadata=option("gamecleaner: training run folder or weights file"))
    reference: str | None = field(
        default=None,
        metadata=option(
            "gamecleaner: reference frame: none (default), self (the source cleaned by the default removal method), "
            "oracle (the ground-truth clean frame: synthetic upper bound, labelled so)",
            choices=("none", "self", "oracle"),
        ),
    )
    reference_image: str | None = field(
        default=None,
        metadata=option(
            "gamecleaner: your clean reference frame: an image for every case, or a folder of <case_id>.png|.jpg "
            "(resized to the model's frame size)",
            metavar="PATH",
        ),
    )
    reference_edits: str | None = field(
        default=None,
        metadata=option(
            "gamecleaner with --reference self: a `g2w remove` output of the default method, whose edit of a case "
            "is the reference when it was made from that very source with the default options",
            metavar="DIR",
        ),
    )
    steps: int | None = field(
        default=None,
        metadata=option(
            "gamecleaner: sampler steps (default 50 for euler, 12 for unipc and dpm++)", type=positive(int)
        ),
    )
    sampler: str | None = field(
        default=None,
        metadata=option(
            "gamecleaner: euler (default, training's grid), unipc or dpm++ (diffusers' flow multistep solvers, "
            "few steps)",
            choices=("euler", "unipc", "dpm++"),
        ),
    )
    attention: str | None = field(
        default=None,
        metadata=option(
            "gamecleaner: diffusers attention backend of the DiT (default: diffusers' own, native SDPA); on CPU "
            "native, _native_flash, _native_math or flex",
            metavar="BACKEND",
        ),
    )
    compile: bool = field(
        default=False, metadata=option("gamecleaner: torch.compile the DiT's blocks (regional, once per worker)")
    )
    base_dir: str | None = field(default=None, metadata=option("gamecleaner: Wan folder in diffusers layout"))
    mllm_dir: str | None = field(default=None, metadata=option("gamecleaner: Qwen2.5-VL folder"))

    def __post_init__(self) -> None:
        from g2w.segment.mask_rules import parse_rules

        for name in ("mask", "mask_rules"):
            if getattr(self, name) and self.method not in MASK_CHOICE_METHODS:
                raise ValueError(f"{flag_name(name)} applies to {', '.join(MASK_CHOICE_METHODS)}, not {self.method}")
        if self.mask_rules:
            parse_rules(self.mask_rules)  # a bad list fails here, not in every worker
        if self.attention is not None:  # an unknown name fails here; what a worker's device runs, on the worker
            from g2w.models.gamecleaner.speed import backend_names

            if self.attention not in backend_names():
                raise ValueError(f"--attention {self.attention!r}: one of {', '.join(backend_names())}")

    def method_options(self) -> dict:
        """The method's options that are set (a switch not given is not set)."""
        job = ("method", "cases", "output")
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in job and getattr(self, f.name) is not None and getattr(self, f.name) is not False
        }
