"""One clean 720p clip captured from a Freedoom demo: our capture path against the engine's own.

Both sides replay the same demo from the same start with the same settings (clean view,
1280x720, 30 fps, fixed-timestep `-viddump`) and end with the same output: an H.264 MP4 of
the same frames, libx264 crf 18, preset fast, yuv420p.

  ours: the engine's frames go through ffmpeg to a lossless raw RGB file (what the pair check
        needs), which `g2w.capture.clip.encode_frames` then encodes (PyAV libx264);
  peer: the engine pipes its frames straight into ffmpeg libx264 (its own `-viddump` path),
        with no lossless copy.

The whole process and every child is pinned to the same CPUs (`--cpus`, default one), so both
sides get the same threads. Each side runs `--repeats` times, alternating; the medians are
compared, the ratio ours / peer last. Run it under `heavy --exclusive` on a quiet machine.

Usage: python benchmarks/capture_speed.py [--frames 150] [--start-s 10] [--cpus 0] [--repeats 3]
       [--results docs/results/capture_speed.md]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

from g2w.capture import get_game
from g2w.capture.clip import WARMUP_FRAMES, encode_frames
from g2w.capture.game import read_raw
from g2w.capture.process import run_until, virtual_display
from g2w.io.results_page import markdown_table, write_results_page
from g2w.video import FrameReader

W, H, FPS = 1280, 720, 30


def ours(game, demo, start_s: float, frames: int, workdir: str, display: str) -> str:
    raw = game.capture_run(demo, start_s, frames + WARMUP_FRAMES, False, W, H, FPS, workdir, 600, display)
    out = os.path.join(workdir, "clean.mp4")
    encode_frames(read_raw(raw, W, H)[WARMUP_FRAMES:], out, FPS)
    return out


def peer(game, demo, start_s: float, frames: int, workdir: str, display: str) -> str:
    out, done = os.path.join(workdir, "clean.mp4"), os.path.join(workdir, "done")
    # The engine's first frame after a skip is dropped, as ours drops it.
    sink = (
        f"ffmpeg -nostats -loglevel error -f rawvideo -pix_fmt rgb24 -s %wx%h -r %r -i - "
        f"-vf trim=start_frame={WARMUP_FRAMES},setpts=PTS-STARTPTS -frames:v {frames} "
        f"-c:v libx264 -crf 18 -preset fast -pix_fmt yuv420p -y {out} && touch {done}"
    )
    cmd, env = game.engine_command(demo, start_s, False, W, H, FPS, workdir, display, sink)
    result = run_until(
        cmd,
        env=env,
        cwd=workdir,
        timeout_s=600,
        log_path=os.path.join(workdir, "engine.log"),
        done=lambda: os.path.exists(done),
    )
    if result.finished_by != "done":
        raise RuntimeError(f"peer capture failed: {result.log_tail[-400:]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=150)
    ap.add_argument("--start-s", type=float, default=10.0)
    ap.add_argument("--cpus", default="0", help="comma-separated CPU ids both sides are pinned to")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--results", help="also write this Markdown results page")
    args = ap.parse_args()
    os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
    game = get_game("freedoom")
    if game.available():
        raise SystemExit(game.available())
    demo = game.demos()[0]
    times: dict[str, list[float]] = {"ours": [], "peer": []}
    with virtual_display(W, H) as display:
        for _ in range(args.repeats):
            for name, fn in (("ours", ours), ("peer", peer)):
                workdir = tempfile.mkdtemp(prefix=f"g2w-bench-capture-{name}-")
                try:
                    start = time.perf_counter()
                    out = fn(game, demo, args.start_s, args.frames, workdir, display)
                    times[name].append(time.perf_counter() - start)
                    if len(FrameReader(out)) != args.frames:
                        raise SystemExit(f"{name}: {len(FrameReader(out))} frames, expected {args.frames}")
                finally:
                    shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"demo {demo.demo_id} from {args.start_s:g} s, {args.frames} frames {W}x{H} at {FPS} fps, "
        f"CPUs {args.cpus}, {args.repeats} runs each"
    )
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name}: median {med:.2f} s ({args.frames / med:.1f} frames/s), runs {[round(v, 2) for v in values]}")
    ratio = statistics.median(times["ours"]) / statistics.median(times["peer"])
    print(f"ratio ours/peer (time): {ratio:.2f}")
    if args.results:
        rows = [
            [
                name,
                round(statistics.median(v), 2),
                round(args.frames / statistics.median(v), 1),
                [round(x, 2) for x in v],
            ]
            for name, v in times.items()
        ]
        body = (
            f"Demo {demo.demo_id} from {args.start_s:g} s, {args.frames} frames {W}x{H} at {FPS} fps, both sides pinned"
            f" to CPUs {args.cpus}, {args.repeats} alternating runs each.\n\n"
            + markdown_table(["side", "median s", "frames/s", "runs s"], rows)
            + f"\n\nRatio ours / peer (median time): {ratio:.2f}."
        )
        notes = ["ours keeps a lossless copy for the pair check; the peer encodes straight from the engine."]
        command = f"python benchmarks/capture_speed.py --frames {args.frames} --repeats {args.repeats} --results {args.results}"
        write_results_page(args.results, "One clean capture against the engine's own video dump", command, body, notes)


if __name__ == "__main__":
    main()
