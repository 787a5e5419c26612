"""Peak memory of a curation analysis worker on a 1-hour source, against the same worker on a
1-minute source.

The sources are synthetic and made fast: ffmpeg's `testsrc2` pattern (moving colour bars, a
clock and noise) at 640x360, 30 fps, encoded with libx264 `-preset ultrafast` (a 1-hour file in
about a minute). They are not gameplay; memory depends on the frame size, the frame count and
the window count, not on the content.

Each source is analysed in a fresh process that does what a curation worker does: for every
window-aligned segment of the source (`CurateConfig.segment_windows`, the unit of one Ray task)
it builds the task's one-row batch and runs `AnalyzeWindows` on it, which returns the rows with
their 224x224 crops (the batch that leaves the worker). After the imports the process resets
its peak-RSS mark (`/proc/self/clear_refs`), so the peak it reports is the analysis's own, and
the import baseline (numpy, OpenCV, PyAV: a few hundred MB) is printed apart. `--whole` analyses
the source in one pass instead (the pre-segment behaviour, every crop held to the end).

The ratio printed last is the worker's own growth on the long source over the short one: near 1
means a worker's memory does not grow with the length of the source. Goal: at most 2 GB for the
1-hour source (the growth above imports; the whole process is printed too).

Usage: python benchmarks/curate_memory.py [--long-s 3600] [--short-s 60] [--whole] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

_CHILD = """
import sys, time
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import CurateConfig
from g2w.curate.windows import plan_windows, segments
from g2w.video.sources import probe_row

def status(key):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

source = probe_row(sys.argv[1])
whole = sys.argv[2] == "whole"
cfg = CurateConfig()
step = AnalyzeWindows(cfg.window_s, cfg.analysis_fps, cfg.analysis_short_side, cfg.ui_detector, cfg.quality)
count = len(plan_windows(source["duration_s"], cfg.window_s))
parts = [(0, count)] if whole else segments(count, cfg.segment_windows)
baseline = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) restarts from the current RSS
t0 = time.perf_counter()
windows = ok = 0
for first, end in parts:  # one task each, as Ray Data hands them to a worker
    batch = {k: [v] for k, v in source.items()} | {"first_window": [first], "end_window": [end]}
    out = step(batch)  # the batch that leaves the worker: rows with their crops
    windows += len(out["clip_id"])
    ok += int((out["status"] == "ok").sum())
    del out
print(windows, ok, len(parts), baseline, status("VmHWM:"), round(time.perf_counter() - t0, 1))
"""


def make_source(path: str, seconds: float) -> str:
    """A synthetic 640x360 30 fps H.264 source of the given length (kept for reruns)."""
    if not os.path.exists(path):
        tmp = path + ".partial.mp4"
        subprocess.run(
            [
                "ffmpeg",
                "-v",
                "error",
                "-y",
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=640x360:rate=30",
                "-t",
                str(seconds),
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-crf",
                "28",
                "-g",
                "60",
                "-pix_fmt",
                "yuv420p",
                "-threads",
                "1",
                tmp,
            ],
            check=True,
        )
        os.replace(tmp, path)
    return path


def peak(path: str, mode: str) -> dict:
    """Windows, segments, import baseline MB, peak MB and seconds of a fresh analysing worker."""
    out = subprocess.run([sys.executable, "-c", _CHILD, path, mode], check=True, capture_output=True, text=True)
    windows, ok, parts, baseline_kb, peak_kb, seconds = out.stdout.split()
    return {
        "windows": int(windows),
        "ok": int(ok),
        "segments": int(parts),
        "baseline": int(baseline_kb) / 1024,
        "peak": int(peak_kb) / 1024,
        "seconds": float(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--long-s", type=float, default=3600.0)
    parser.add_argument("--short-s", type=float, default=60.0)
    parser.add_argument("--whole", action="store_true", help="one pass over the whole source (no segments)")
    parser.add_argument("--workdir", default="/tmp/g2w_bench_memory")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    mode = "whole" if args.whole else "segments"
    growth = {}
    for name, seconds in (("long", args.long_s), ("short", args.short_s)):
        path = make_source(os.path.join(args.workdir, f"testsrc2_{seconds:g}s.mp4"), seconds)
        r = peak(path, mode)
        growth[name] = r["peak"] - r["baseline"]
        print(
            f"{seconds:g} s source ({mode}): {r['windows']} windows ({r['ok']} ok) in {r['segments']} tasks, "
            f"{r['seconds']:.0f} s; after imports {r['baseline']:.0f} MB, peak {r['peak']:.0f} MB, so the "
            f"analysis itself adds {growth[name]:.0f} MB",
            flush=True,
        )
    print(
        f"ratio of the worker's own peak growth, {args.long_s:g} s / {args.short_s:g} s source: "
        f"{growth['long'] / max(growth['short'], 1.0):.2f}"
    )


if __name__ == "__main__":
    main()
