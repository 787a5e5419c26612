"""Peak memory of the curation front end on a 10-minute source against a 1-minute source.

Each source is analysed in a fresh process whose peak RSS is read at the end; a ratio near 1
means memory does not grow with the length of the video (the per-window UI maps kept until the
source ends are the only length-dependent part: 65 kB per 5 s window).

Usage: python benchmarks/curate_memory.py [--long-s 600] [--short-s 60]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from g2w.sample_data import VideoSpec, write_sample

_CHILD = """
import resource, sys
from g2w.curate.analyze import AnalyzeWindows
from g2w.sources import probe_row
rows = AnalyzeWindows().analyze_source(probe_row(sys.argv[1]))
print(len(rows), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak(path: str) -> tuple[int, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, path], check=True, capture_output=True, text=True)
    windows, kb = out.stdout.split()
    return int(windows), int(kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--long-s", type=float, default=600.0)
    parser.add_argument("--short-s", type=float, default=60.0)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_memory")
    args = parser.parse_args()
    long_path = write_sample(VideoSpec(0, 960, 640, 360, 30, args.long_s, "topdown", False, None), args.workdir)
    short_path = write_sample(VideoSpec(0, 961, 640, 360, 30, args.short_s, "topdown", False, None), args.workdir)
    long_windows, long_mb = peak(long_path)
    short_windows, short_mb = peak(short_path)
    print(f"{args.long_s:g} s source: {long_windows} windows, peak RSS {long_mb:.0f} MB")
    print(f"{args.short_s:g} s source: {short_windows} windows, peak RSS {short_mb:.0f} MB")
    print(f"ratio long/short: {long_mb / short_mb:.2f}")


if __name__ == "__main__":
    main()
