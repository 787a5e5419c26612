"""Curation front end (probe, windows, cut detection, quality, UI screen, centre crops; CLIP
excluded) against `ffmpeg -f null` decoding the same sources, in source frames per CPU second.

Both sides are timed by CPU time (user + system), so the figure is "per core" whatever
threads either uses. A ratio near 1 means the analysis costs about what decoding alone does.
GameVerse reports about 400 frames/s per worker for its segmentation, for reference.

With --profile the front end runs a second time under cProfile, clocked in CPU time like the
ratio, and prints where its time goes (decoding is the time inside `iter_video_frames`;
everything else is the checks).

`--ui-screen` picks the UI screen as `g2w curate` does (default `auto`, the job's default: the
shipped segmenter when it loads); run it once per screen to read what a screen costs.

Usage: python benchmarks/curate_frontend.py [--seconds 60] [--workdir /tmp/g2w_bench_frontend] [--profile]
       [--ui-screen auto|segmenter|static-edges]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import subprocess
import time

import torch

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.ui_screen import resolve_ui_screen
from g2w.sample_data import VideoSpec, write_sample
from g2w.video.sources import probe_row


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_frontend")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of the front end")
    parser.add_argument("--ui-screen", default="auto", help="auto | segmenter | static-edges (as g2w curate)")
    args = parser.parse_args()
    specs = [
        VideoSpec(0, 950, 1280, 720, 30, args.seconds, "corridor", True, "dark"),
        VideoSpec(0, 951, 1920, 1080, 60, args.seconds / 2, "topdown", False, "shaky"),
        VideoSpec(0, 952, 854, 480, 24, args.seconds, "racing", False, "duplicate"),
    ]
    paths = [write_sample(s, args.workdir) for s in specs]
    frames = sum(s.frame_count for s in specs)

    start = cpu_children()
    for path in paths:
        subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"], check=True)
    peer = cpu_children() - start

    torch.set_num_threads(1)  # as in the job: Ray gives a one-CPU analysis task OMP_NUM_THREADS=1
    screen = resolve_ui_screen(args.ui_screen)[0]
    step = AnalyzeWindows(ui_detector=screen)
    start = cpu_self()
    windows = sum(len(step.analyze_source(probe_row(p))) for p in paths)
    ours = cpu_self() - start

    if args.profile:
        profile = cProfile.Profile(time.process_time)
        profile.runcall(lambda: [step.analyze_source(probe_row(p)) for p in paths])
        stats = pstats.Stats(profile)
        total = stats.total_tt
        decode = next(v[3] for k, v in stats.stats.items() if k[2] == "iter_video_frames")
        print(
            f"profile: {total:.2f} CPU s in all (with the profiler's own cost), {decode:.2f} s ({decode / total:.0%}) "
            f"inside the decoder's generator; the rest by function:"
        )
        stats.sort_stats("tottime").print_stats(14)
    print(f"{len(paths)} sources, {frames} frames (720p30, 1080p60, 480p24), {windows} windows")
    print(f"ffmpeg -f null decode:  {peer:7.2f} CPU s  {frames / peer:7.1f} frames per CPU second")
    print(f"curation front end ({screen} UI screen):")
    print(
        f"                        {ours:7.2f} CPU s  {frames / ours:7.1f} frames per CPU second; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"ratio ours/ffmpeg (CPU time): {ours / peer:.2f}")


if __name__ == "__main__":
    main()
