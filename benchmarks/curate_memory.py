"""Peak memory of the curation front end on a 10-minute source against a 1-minute source.

Each source is analysed in a fresh process that runs exactly what a curation worker runs
(`AnalyzeWindows.analyze_source`). After the imports, the process resets its peak-RSS mark
(`/proc/self/clear_refs`), so the peak it reports is the analysis's own, and the import baseline
(numpy, OpenCV, PyAV: a few hundred MB that would otherwise hide any growth) is printed apart.
A ratio of the analysis's growth near 1 means memory does not grow with the length of the
video (the per-window UI maps and the per-frame cut cues kept until the source ends are the
only length-dependent parts: about 65 kB per 5 s window and 50 bytes per frame).

Usage: python benchmarks/curate_memory.py [--long-s 600] [--short-s 60]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from g2w.sample_data import VideoSpec, write_sample

_CHILD = """
import sys
from g2w.curate.analyze import AnalyzeWindows
from g2w.sources import probe_row

def status(key):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

source = probe_row(sys.argv[1])
baseline = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) restarts from the current RSS
rows = AnalyzeWindows().analyze_source(source)
print(len(rows), baseline, status("VmHWM:"))
"""


def peak(path: str) -> tuple[int, float, float]:
    """(windows, import baseline MB, peak MB while analysing) of a fresh analysing process."""
    out = subprocess.run([sys.executable, "-c", _CHILD, path], check=True, capture_output=True, text=True)
    windows, baseline_kb, peak_kb = out.stdout.split()
    return int(windows), int(baseline_kb) / 1024, int(peak_kb) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--long-s", type=float, default=600.0)
    parser.add_argument("--short-s", type=float, default=60.0)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_memory")
    args = parser.parse_args()
    long_path = write_sample(VideoSpec(0, 960, 640, 360, 30, args.long_s, "topdown", False, None), args.workdir)
    short_path = write_sample(VideoSpec(0, 961, 640, 360, 30, args.short_s, "topdown", False, None), args.workdir)
    growth = {}
    for name, path, seconds in (("long", long_path, args.long_s), ("short", short_path, args.short_s)):
        windows, baseline, top = peak(path)
        growth[name] = top - baseline
        print(f"{seconds:g} s source: {windows} windows; after imports {baseline:.0f} MB, peak while analysing "
              f"{top:.0f} MB, so the analysis itself adds {growth[name]:.0f} MB")
    print(f"ratio of the analysis's own growth, long/short: {growth['long'] / max(growth['short'], 1.0):.2f}")


if __name__ == "__main__":
    main()
