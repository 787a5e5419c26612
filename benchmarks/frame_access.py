"""Sparse frame access and streaming memory, measured against ffmpeg decoding the same file.

1. Central frames of every 5 s window through `FrameReader` (decord, seeking) against
   `ffmpeg -f null` decoding the whole file: the ratio shows that sparse reads do not decode
   everything (a ratio well below 1 means less work than a full decode).
2. A full pass through `iter_frames` against the same ffmpeg decode (decode + RGB conversion
   for us; ffmpeg decodes only, so this side is not like-for-like: ours does more).
Both sides get the same thread settings: the process and the ffmpeg it starts are pinned to one
CPU, and both decoders are asked for one thread.
3. Peak memory of a full `iter_frames` pass over a long source against a source 1/4 as long:
   a ratio near 1 means memory does not grow with length.

Usage: python benchmarks/frame_access.py [--seconds 120] [--workdir /tmp/g2w_bench]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

from g2w.sample_data import VideoSpec, write_sample
from g2w.video import FrameReader, probe
from g2w.video.decode import iter_video_frames

WINDOW_S = 5.0


def ffmpeg_decode_s(path: str) -> float:
    start = time.perf_counter()
    subprocess.run(["ffmpeg", "-v", "error", "-threads", "1", "-i", path, "-f", "null", "-"], check=True)
    return time.perf_counter() - start


def central_frames_s(path: str) -> tuple[float, int]:
    start = time.perf_counter()
    reader = FrameReader(path, threads=1)
    duration = len(reader) / reader.fps
    centers = [(k + 0.5) * WINDOW_S for k in range(int(duration // WINDOW_S))]
    frames = reader.read_at(centers)
    return time.perf_counter() - start, len(frames)


def stream_s(path: str) -> float:
    start = time.perf_counter()
    for _, _, frame in iter_video_frames(path, threads=1):  # what iter_frames does, on one thread
        frame.to_ndarray(format="rgb24")
    return time.perf_counter() - start


def peak_rss_mb_of_stream(path: str) -> float:
    """Peak RSS of a child process that streams the whole file (isolated from this process)."""
    code = (
        "import resource,sys\nfrom g2w.video import iter_frames\n"
        "for _ in iter_frames(sys.argv[1]): pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, path], check=True, capture_output=True, text=True)
    return int(out.stdout.strip()) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--workdir", default="/tmp/g2w_bench")
    args = parser.parse_args()
    if not shutil.which("ffmpeg"):
        sys.exit("ffmpeg is needed as the peer (make installs it)")
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one CPU for us and for ffmpeg
    long_spec = VideoSpec(0, 900, 1280, 720, 30, args.seconds, "topdown", False, "play")
    short_spec = VideoSpec(0, 901, 1280, 720, 30, args.seconds / 4, "topdown", False, "play")
    long_path = write_sample(long_spec, args.workdir)
    short_path = write_sample(short_spec, args.workdir)
    frames = probe(long_path).frame_count

    peer = ffmpeg_decode_s(long_path)
    sparse, n = central_frames_s(long_path)
    full = stream_s(long_path)
    print(f"source: {long_path} ({frames} frames, 1280x720 @ 30 fps)")
    print(f"ffmpeg -f null full decode:      {peer:7.2f} s  ({frames / peer:7.1f} frames/s)")
    print(f"central frames of {n:3d} windows:  {sparse:7.2f} s  ratio ours/ffmpeg = {sparse / peer:.3f}")
    print(f"iter_frames full pass (RGB):     {full:7.2f} s  ratio ours/ffmpeg = {full / peer:.3f}")
    rss_long, rss_short = peak_rss_mb_of_stream(long_path), peak_rss_mb_of_stream(short_path)
    print(
        f"peak RSS streaming {args.seconds:g} s: {rss_long:.0f} MB; {args.seconds / 4:g} s: {rss_short:.0f} MB; "
        f"ratio = {rss_long / rss_short:.2f}"
    )


if __name__ == "__main__":
    main()
