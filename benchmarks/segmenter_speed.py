"""Segmenter throughput at 720p next to FFmpeg's null decode of the same clip, side by side.

Ours: `Segmenter.frames` end to end on one clip (decode scaled to the model's input by
swscale, temporal statistics, the network, and the full-size mask: with the checkpoint's
full-resolution refiner, the full-size luma of each frame, its statistics on the candidate tiles
and the refiner; the same without the refiner is printed beside it). Peer: `ffmpeg -threads T -i CLIP -f null -`, which decodes every frame at full size
and does nothing else; it is the floor any per-frame video tool pays. Both use the same number
of threads (torch intra-op threads for ours). Run with `heavy --exclusive` on a quiet machine.

Usage: python benchmarks/segmenter_speed.py CLIP.mp4 [--threads 2] [--checkpoint DIR] [--repeats 2]
"""

from __future__ import annotations

import argparse
import subprocess
import time

from g2w.segment.full_size import segmenter_fps
from g2w.segment.predict import Segmenter
from g2w.video import probe


def ffmpeg_fps(clip: str, frames: int, threads: int) -> float:
    start = time.perf_counter()
    subprocess.run(["ffmpeg", "-v", "error", "-threads", str(threads), "-i", clip, "-f", "null", "-"], check=True)
    return frames / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("clip")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    info = probe(args.clip)
    segmenter = Segmenter(args.checkpoint, threads=args.threads, full_res=True)
    plain = Segmenter(args.checkpoint, threads=args.threads, full_res=False)
    runs = {"refined": [], "plain": []}
    for _ in range(args.repeats):  # interleaved, so load changes hit both alike
        runs["refined"].append(segmenter_fps(segmenter, args.clip, info.width, info.height))
        runs["plain"].append(segmenter_fps(plain, args.clip, info.width, info.height))
    ours, without = max(runs["refined"]), max(runs["plain"])
    peer = max(ffmpeg_fps(args.clip, info.frame_count, args.threads) for _ in range(args.repeats))
    print(f"clip: {args.clip} {info.width}x{info.height} {info.frame_count} frames, {args.threads} threads")
    if segmenter.refiner is None:
        print("(this checkpoint has no full-resolution refiner: both rows are the plain mask)")
    print(f"segmenter without the full-resolution step:            {without:.1f} fps")
    print(f"segmenter (decode + stats + network + full-size mask): {ours:.1f} fps (goal >= 25)")
    print(f"ffmpeg null decode (full size, nothing else):          {peer:.1f} fps")
    print(f"ours / peer: {ours / peer:.3f}")


if __name__ == "__main__":
    main()
