"""End-to-end removal throughput at 720p: `propagate` next to `telea-gt` on the same cases.

Each method runs in this process, one case after another, on every case of a synthesis output
(decode, mask, fill and H.264 encode included; frames written / wall seconds). `propagate` runs
twice: with the segmenter's mask (mask-free, its default, which adds the segmenter's cost) and
with the ground-truth mask (like for like with telea-gt). OpenCV and torch get the same thread
count. `--preset` sets libx264's preset for every method alike (default: the removers' own,
veryfast). Run with `heavy --exclusive` on a quiet machine.

Usage: python benchmarks/propagate_speed.py SYNTH_OUT [--threads 2] [--cases 2] [--workdir /tmp/g2w_bench_prop]
       [--preset superfast]
"""

from __future__ import annotations

import argparse
import os
import shutil
import time

import cv2
import torch

from g2w.cases.case import load_cases
from g2w.remove import run_method

RUNS = (("propagate", {"mask": "segmenter"}), ("propagate", {"mask": "gt"}), ("telea-gt", {}))


def method_fps(method: str, options: dict, cases, workdir: str) -> float:
    out = os.path.join(workdir, f"{method}_{options.get('mask', 'gt')}")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    start = time.perf_counter()
    frames = sum(run_method(method, case, case.edited_path(out), **options) for case in cases)
    return frames / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("synth_out")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", type=int, default=2, help="720p cases to use")
    parser.add_argument("--workdir", default="/tmp/g2w_bench_prop")
    parser.add_argument("--preset", default=None, help="libx264 preset for every method (default: theirs)")
    args = parser.parse_args()
    cv2.setNumThreads(args.threads)
    torch.set_num_threads(args.threads)
    cases = [c for c in load_cases(args.synth_out) if (c.width, c.height) == (1280, 720)][: args.cases]
    if not cases:
        raise SystemExit(f"{args.synth_out}: no 1280x720 cases")
    print(
        f"{len(cases)} cases at 1280x720: {[c.case_id for c in cases]}, {args.threads} threads, "
        f"preset {args.preset or 'default'}"
    )
    extra = {"preset": args.preset} if args.preset else {}
    results = {f"{m} mask={o.get('mask', 'gt')}": method_fps(m, {**o, **extra}, cases, args.workdir) for m, o in RUNS}
    for name, fps in results.items():
        print(f"{name:28s} {fps:6.1f} fps (decode + mask + fill + encode)")
    print(f"propagate(gt) / telea-gt: {results['propagate mask=gt'] / results['telea-gt mask=gt']:.3f}")
    print(f"propagate(segmenter) / telea-gt: {results['propagate mask=segmenter'] / results['telea-gt mask=gt']:.3f}")


if __name__ == "__main__":
    main()
