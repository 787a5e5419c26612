"""Every knob of the curation job in one typed place, with the paper's defaults.

Appendix B.1 gives the window length, candidate cap, K_max, the k-means initialization cap and
iteration count, and the dedup threshold; GameVerse (Appendix B of its paper) gives the UI
coverage limit and the optional hard constraints. The quality thresholds were calibrated on real
footage of several games (the record: docs/experiments/2026-12-05-readme-record.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from g2w.option_flags import option


@dataclass(frozen=True)
class QualityThresholds:
    """Limits a window must meet; each measured value is kept whatever the verdict."""

    dark_luma: float = 22.0  # a sample with mean luma below this (and 99 % below 3x it) is dark
    bright_luma: float = 235.0  # ... above this (and 99 % within 3x its gap to white) blown out
    max_dark_fraction: float = 0.25  # reject when more sampled frames than this are dark
    max_bright_fraction: float = 0.25
    min_sharpness: float = 7.0  # median Laplacian variance at the analysis size
    frozen_change: float = 0.001  # a sample step changing fewer pixels than this share is frozen
    max_frozen_fraction: float = 0.25  # reject when more sample steps than this are frozen
    max_shake: float = 0.25  # share of frame steps with a camera jolt (> 1 % of the width)
    max_border_fraction: float = 0.10  # letterbox/pillarbox area (GameVerse: 10 %)
    max_ui_coverage: float = 0.04  # static overlay area (GameVerse: 4 %)
    min_short_side: int = 0  # GameVerse hard constraint, off by default (--gameverse: 720)
    min_fps: float = 0.0  # GameVerse: 24
    max_fps: float = 1000.0  # GameVerse: 65


GAMEVERSE = {"min_short_side": 720, "min_fps": 24.0, "max_fps": 65.0}


@dataclass(frozen=True)
class CurateConfig:
    window_s: float = 5.0
    max_candidates: int = 100_000
    k_max: int = 2048
    kmeans_init_cap: int = 500_000
    kmeans_iters: int = 15
    dedup_threshold: float = 0.94  # CLIP cosine (the paper's value, for real CLIP weights)
    appearance_dedup_threshold: float = 0.988  # appearance-descriptor cosine (benchmarks/fit_appearance_dedup.py)
    seed: int = 0
    embedder: str = "auto"  # auto (CLIP when --clip-pretrained is given, else appearance) | clip | appearance
    clip_model: str = "ViT-B-16"  # an open_clip name, or a path to an open_clip model-config JSON
    clip_pretrained: str | None = None  # an open_clip tag from the local cache, or a weights file
    device: str = "auto"  # auto | cpu | cuda
    embed_batch_size: int = 32
    embed_workers: int = 0  # most CLIP actors; 0 = as many as the cluster can grow to
    segment_windows: int = 60  # windows per analysis task (5 min): long sources split into segments
    analysis_fps: float = 8.0  # sampled frames per second for cuts, quality and UI
    analysis_short_side: int = 540  # HUD strokes of 2 px at 1080p must survive the downscale
    ui_detector: str = "auto"  # auto: the shipped segmenter when it loads, else static-edges
    cuts: str = "rules"  # rules | cascade | transnetv2: which detector judges the cuts (cut_modes)
    cut_probability: float = 0.5  # TransNetV2's per-frame probability that is a cut (transnet.THRESHOLD)
    # dark/frozen/blurry/shaky decided by the shipped model over the cues, or by the thresholds
    decisions: str = field(default="rules", metadata=option(choices=("learned", "rules")))
    quality: QualityThresholds = field(default_factory=QualityThresholds)
    out_width: int = 1280
    out_height: int = 720
    out_fps: int = 30
    crf: int = 18
    preset: str = "fast"

    @property
    def uses_clip(self) -> bool:
        """CLIP embeds the windows when asked for, or by default when it has real weights; a
        randomly initialized CLIP says nothing about near-duplicates, so `auto` never picks it."""
        if self.embedder not in ("auto", "clip", "appearance"):
            raise ValueError(f"unknown embedder {self.embedder!r}: auto, clip or appearance")
        return self.embedder == "clip" or (self.embedder == "auto" and bool(self.clip_pretrained))

    @property
    def active_dedup_threshold(self) -> float:
        return self.dedup_threshold if self.uses_clip else self.appearance_dedup_threshold
