"""Command-line options of the curation job, generated from the config dataclasses so that
every knob (window length, caps, K_max, dedup threshold, CLIP model and weights, device, and
every quality threshold) is settable and none can drift from its default."""

from __future__ import annotations

import argparse
from dataclasses import replace

from g2w.curate.config import GAMEVERSE, CurateConfig, QualityThresholds
from g2w.curate.cut_modes import MODES
from g2w.option_flags import add_flags, from_args

_HELP = {
    "window_s": "window length in seconds",
    "max_candidates": "cluster-balanced sampling cap",
    "k_max": "largest number of k-means clusters",
    "kmeans_init_cap": "most candidates k-means trains on",
    "dedup_threshold": "CLIP cosine similarity above which the later of two adjacent windows goes",
    "appearance_dedup_threshold": "the same for the appearance descriptor (used without CLIP weights)",
    "embedder": "auto (CLIP with --clip-pretrained, else the appearance descriptor) | clip | appearance",
    "clip_model": "open_clip architecture name, or a path to an open_clip model-config JSON",
    "clip_pretrained": "open_clip pretrained tag (local cache only) or a weights file; none = random init",
    "device": "auto | cpu | cuda, for CLIP and k-means (cuda on an autoscaling cluster asks for GPU nodes)",
    "embed_workers": "most CLIP actors; 0 = what the cluster can grow to (G2W_MAX_GPUS, set by the cluster configs)",
    "ui_detector": "UI-contamination screen: auto (segmenter when the shipped checkpoint loads, else static-edges) | "
    "segmenter (the shipped HUD segmenter) | static-edges (heuristic)",
    "cuts": "cut detector: rules (the hand-set cues) | transnetv2 (the pretrained TransNetV2 on every frame, "
    "on the GPU when the node has one) | cascade (the cues propose candidate frames, TransNetV2 confirms them) | "
    "learned (a logistic regression over the cues at those candidates, g2w/weights/curate_cuts.md)",
    "cut_probability": "TransNetV2's per-frame probability at or above which a frame ends a shot",
    "decisions": "accept/reject of dark, frozen, blurry and shaky windows: learned (the shipped model over the "
    "measured cues, g2w/weights/curate_decisions.md) | rules (the quality thresholds below)",
    "preset": "libx264 preset for the standardized clips",
    "segment_windows": "windows per analysis task: longer sources are split into window-aligned segments",
}


_ALIASES = {"ui_detector": ["--ui-screen"]}
_CHOICES = {"cuts": list(MODES)}


def add_curate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="files, directories, globs, or .txt/.parquet lists of paths (local or s3://)",
    )
    parser.add_argument("--output", required=True, help="output folder (rerun with the same one to resume)")
    add_flags(parser, CurateConfig, helps=_HELP, aliases=_ALIASES, choices=_CHOICES, skip=("quality",))
    quality = parser.add_argument_group("quality thresholds")
    add_flags(quality, QualityThresholds, helps=_HELP)
    quality.add_argument(
        "--gameverse", action="store_true", help=f"also apply GameVerse's hard constraints {GAMEVERSE}"
    )


def config_from_args(args: argparse.Namespace) -> CurateConfig:
    quality = from_args(QualityThresholds, args)
    if args.gameverse:
        quality = replace(quality, **GAMEVERSE)
    return from_args(CurateConfig, args, quality=quality)
