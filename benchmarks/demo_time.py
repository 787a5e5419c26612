"""What `make demo` takes: one fresh `g2w demo` run, its wall time by stage and the CPU it used.

The demo runs in a child process into an empty folder (so no stage reuses earlier work). Wall
time on a shared machine follows the other load, so the page also gives the CPU seconds of the
run's processes (the driver and the Ray processes it waited for) and the load average around it.
`--compare SUMMARY` adds the stage times of an earlier run's `summary.json` (for example one made
by an older commit) as a second column, named by `--compare-label` (a path would name a machine).

    python benchmarks/demo_time.py --compare old_demo_out/summary.json --compare-label "commit abc1234"
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

from g2w.io.results_page import markdown_table, write_results_page

STAGES = ("samples", "curate", "assets", "synthesize", "remove_evaluate", "gamecleaner")


def run_demo(output: str) -> dict:
    """One `g2w demo` in a child process; its summary with the wall, CPU and load around it."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("RAY_ADDRESS", None)  # the demo's own embedded Ray, as `make demo` runs it
    command = [sys.executable, "-c", "import sys; from g2w.cli import main; sys.exit(main())", "demo"]
    load_before = os.getloadavg()[0]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([*command, "--output", output], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(output, "summary.json")) as f:
        summary = json.load(f)
    return {
        "wall_s": wall,
        "cpu_s": (cpu.ru_utime - cpu_before.ru_utime) + (cpu.ru_stime - cpu_before.ru_stime),
        "load": (load_before, os.getloadavg()[0]),
        "timings_s": summary["timings_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", default=None, help="demo folder (default: a temporary one, removed after)")
    ap.add_argument("--compare", default=None, metavar="SUMMARY", help="an earlier run's summary.json")
    ap.add_argument("--compare-label", default="earlier run", help="what the earlier run was, for its column")
    ap.add_argument("--out", default="docs/results/demo_time.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="g2w-demo-time-") as tmp:
        run = run_demo(args.output or tmp)
    print(json.dumps(run), flush=True)
    earlier = None
    if args.compare:
        with open(args.compare) as f:
            earlier = json.load(f)["timings_s"]
    header = ["stage", "this run: wall s"] + ([f"{args.compare_label}: wall s"] if earlier else [])
    rows = []
    for stage in STAGES:
        rows.append([stage, run["timings_s"].get(stage, "–")] + ([earlier.get(stage, "–")] if earlier else []))
    rows.append(
        ["all stages", round(sum(run["timings_s"].values()), 1)]
        + ([round(sum(earlier.values()), 1)] if earlier else [])
    )
    body = markdown_table(header, rows)
    notes = [
        f"`g2w demo` with its defaults, whole command {run['wall_s']:.0f} s wall (Python and Ray start and the "
        f"report included), {run['cpu_s']:.0f} CPU s in the processes it waited for.",
        f"1-minute load average {run['load'][0]:.1f} at the start and {run['load'][1]:.1f} at the end, on "
        f"{os.cpu_count()} cores: a load above the core count means other work shared them and stretched the wall times.",
    ]
    cmd = "python benchmarks/demo_time.py" + (
        f" --compare SUMMARY --compare-label '{args.compare_label}'" if earlier else ""
    )
    print(write_results_page(args.out, "What `make demo` takes", cmd, body, notes))


if __name__ == "__main__":
    main()
