"""Long-horizon measurements, written to docs/results/long_horizon.md.

1. Segmentation throughput: `g2w curate --mode long` over real captures (a `g2w capture` corpus's
   clean clips), source frames per second of the analysis stage per CPU of the local cluster,
   beside GameVerse's reported ~400 frames/s per worker (its hardware unknown; a ratio of
   reported figures, not a side-by-side run).
2. Segment lengths on those captures at the default 30-120 s bounds.
Trajectories are measured by benchmarks/trajectories.py.

    python benchmarks/long_horizon.py --corpus CAPTURE_OUT --work WORK
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys

from g2w.curate.config import CurateConfig
from g2w.curate.segments import SegmentConfig
from g2w.io.results_page import markdown_table, write_results_page
from g2w.jobs.curate_long import run_curate_long

GAMEVERSE_FPS_PER_WORKER = 400.0


def segmentation(corpus: str, work: str) -> tuple[str, dict]:
    clips = sorted(glob.glob(os.path.join(corpus, "clean", "*.mp4")))
    summary = run_curate_long(
        clips, os.path.join(work, "curate_long"), CurateConfig(preset="ultrafast"), SegmentConfig()
    )
    cpus = max(1.0, float(summary["cluster"]["CPU"]))
    fps = summary["throughput"]["source_frames_per_s"] or 0.0
    rows = [
        [
            "analysis (decode, cuts, quality, UI, embed)",
            len(clips),
            fps,
            round(fps / cpus, 1),
            GAMEVERSE_FPS_PER_WORKER,
            round(fps / cpus / GAMEVERSE_FPS_PER_WORKER, 3),
        ]
    ]
    text = (
        "## Segmentation throughput\n\n"
        + markdown_table(
            [
                "stage",
                "sources",
                "frames/s (cluster)",
                "frames/s per CPU",
                "GameVerse per worker (reported)",
                "ours / GameVerse",
            ],
            rows,
        )
        + f"\n\nLocal cluster: {cpus:g} CPUs.\n\n"
    )
    text += (
        "## Segment lengths on the real captures (30-120 s)\n\n"
        + markdown_table(
            ["kept", "rejected", "reasons", "length stats"],
            [
                [
                    summary["segments"]["kept"],
                    summary["segments"]["rejected"],
                    json.dumps(summary["rejected_by_reason"]),
                    json.dumps(summary["length_s"]),
                ]
            ],
        )
        + "\n\n"
    )
    return text, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a g2w capture output folder (clean/*.mp4)")
    parser.add_argument("--work", required=True)
    parser.add_argument("--output", default="docs/results/long_horizon.md")
    args = parser.parse_args()
    seg, _ = segmentation(args.corpus, args.work)
    body = seg + "Camera trajectories: [trajectories.md](trajectories.md).\n"
    command = "python benchmarks/long_horizon.py --corpus CAPTURE_OUT --work WORK"
    write_results_page(
        args.output,
        "Long-horizon segments and trajectories",
        command,
        body,
        notes=[
            "The real captures are 5 s clips: no minute-scale segment can come from them at the "
            "default 30 s minimum, so their segment lengths say nothing yet.",
            "GameVerse's ~400 frames/s per worker is its reported figure on unknown hardware.",
        ],
    )
    print(open(args.output).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
