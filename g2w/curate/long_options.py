"""Command-line options of the curation job's long mode (minute-scale segments)."""

from __future__ import annotations

import argparse

from g2w.curate.segments import SegmentConfig

_DEFAULTS = SegmentConfig()


def add_long_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("long mode (minute-scale segments)")
    group.add_argument(
        "--mode",
        choices=("window", "long"),
        default="window",
        help="window: 5 s clips (default); long: scene-consistent segments of --min-segment-s to --max-segment-s",
    )
    group.add_argument(
        "--min-segment-s",
        type=float,
        default=_DEFAULTS.min_s,
        help=f"shortest segment kept (default: {_DEFAULTS.min_s})",
    )
    group.add_argument(
        "--max-segment-s",
        type=float,
        default=_DEFAULTS.max_s,
        help=f"longest segment; longer runs are split into equal pieces (default: {_DEFAULTS.max_s})",
    )
    group.add_argument(
        "--keep-hud",
        action="store_true",
        help="keep segments whose windows fail only the UI check, marked for removal (hud_status none)",
    )
    group.add_argument(
        "--transition-span",
        type=int,
        default=_DEFAULTS.transition_span,
        help=f"windows compared on each side of a boundary (default: {_DEFAULTS.transition_span})",
    )
    group.add_argument(
        "--transition-distance",
        type=float,
        default=None,
        help="embedding cosine distance that makes a gradual transition (default: the embedder's)",
    )


def segment_config_from_args(args: argparse.Namespace) -> SegmentConfig:
    return SegmentConfig(
        min_s=args.min_segment_s,
        max_s=args.max_segment_s,
        keep_hud=args.keep_hud,
        transition_span=args.transition_span,
        transition_distance=args.transition_distance,
    )
