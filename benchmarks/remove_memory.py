"""Peak memory of one `RemoveCases` task per removal method, on the demo's 720p pairs.

Each method removes the HUD of one case through the remove job's own `remove_one`, as a task
with one CPU on a one-CPU local Ray, each in a fresh worker process, so the process measured
is a Ray worker as a `RemoveCases` task gets it. It reports the worker's peak resident set (`ru_maxrss`, exact) and
its peak unique set (USS, sampled with psutil every 50 ms from the task itself): USS is what Ray
Data's high-memory warning compares with the memory a step declares (`g2w.remove.Method`). GameCleaner
runs with the demo's options (tiny model from the demo's training run, `self` reference), once
cleaning its reference in the task and once taking the demo's existing removal.

    python benchmarks/remove_memory.py --demo DEMO_OUT

DEMO_OUT is a finished `g2w demo --output DEMO_OUT` folder (its `synth/`, `removed/` and
`gamecleaner/run/` are read; nothing is written there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from g2w.io.results_page import markdown_table, write_results_page

_CHILD = r"""
import json, resource, sys, threading
import psutil
import ray

@ray.remote(num_cpus=1, max_calls=1)  # a fresh worker process for every task
def task(method, cases, out, options):
    from g2w.cases.case import load_cases
    from g2w.jobs.remove import remove_one

    case = load_cases(cases)[0]
    proc = psutil.Process()
    base = proc.memory_full_info().uss
    peak = [base]
    stop = threading.Event()

    def watch():
        while not stop.wait(0.05):
            peak[0] = max(peak[0], proc.memory_full_info().uss)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    row = remove_one(method, case, out, options)
    stop.set()
    watcher.join()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"status": row["status"], "reason": row["reason"], "frames": row["frames"], "case": case.case_id,
            "base_uss": base, "peak_uss": peak[0], "peak_rss": rss}

from g2w.runtime.ray_init import init_ray, shutdown_ray

init_ray(num_cpus=1)  # the local cluster as a job starts it, with one CPU: one task at a time
cases, out = sys.argv[1], sys.argv[2]
for n, (method, options) in enumerate(json.loads(sys.argv[3])):
    print(json.dumps(ray.get(task.remote(method, cases, f"{out}/{n}", options))), flush=True)
shutdown_ray()
"""


def measure(cases: str, runs: list[tuple[str, dict]]) -> list[dict]:
    """One result per (method, options), each run as its own task in a fresh worker."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("RAY_ADDRESS", None)  # its own one-CPU Ray, never a cluster the shell points at
    with tempfile.TemporaryDirectory(prefix="g2w-remove-memory-") as out:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, cases, out, json.dumps(runs)], env=env, capture_output=True, text=True
        )
    if done.returncode:
        raise SystemExit(f"exit {done.returncode}\n{done.stderr[-3000:]}")
    return [json.loads(line) for line in done.stdout.strip().splitlines() if line.startswith("{")]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--demo", required=True, metavar="DEMO_OUT", help="a finished `g2w demo` output folder")
    ap.add_argument("--out", default="docs/results/remove_memory.md")
    args = ap.parse_args()
    from g2w.jobs.demo import METHODS
    from g2w.remove import DEFAULT_METHOD

    synth = os.path.join(args.demo, "synth")
    gamecleaner = {"checkpoint": os.path.join(args.demo, "gamecleaner", "run"), "steps": 4, "reference": "self"}
    runs = [(m, m, {}) for m in METHODS] + [
        ("gamecleaner", "gamecleaner, self reference cleaned in the task", gamecleaner),
        (
            "gamecleaner",
            "gamecleaner, self reference taken from the demo's removal",
            {**gamecleaner, "reference_edits": os.path.join(args.demo, "removed", DEFAULT_METHOD)},
        ),
    ]
    gib = 1 << 30
    rows, results = [], {}
    for (_, label, _), result in zip(runs, measure(synth, [(m, o) for m, _, o in runs]), strict=True):
        results[label] = result
        print(label, json.dumps(result), flush=True)
        rows.append(
            [
                label,
                result["status"],
                result["frames"],
                round(result["base_uss"] / gib, 2),
                round(result["peak_uss"] / gib, 2),
                round(result["peak_rss"] / gib, 2),
            ]
        )
    body = markdown_table(
        [
            "method (one task)",
            "status",
            "frames",
            "worker USS at the task's start, GiB",
            "peak USS, GiB",
            "peak RSS, GiB",
        ],
        rows,
    )
    notes = [
        "One 1280x720, 30 fps synthesized pair of the demo per method, each as a one-CPU task on a one-CPU local "
        "Ray in a new worker process, as a `RemoveCases` task runs.",
        "Peak USS is sampled every 50 ms (Ray Data's high-memory warning compares it with the declared memory); "
        "peak RSS is the kernel's exact high-water mark and includes pages shared with other processes.",
        f"The largest peak USS here: {max(r['peak_uss'] for r in results.values()) / gib:.2f} GiB.",
    ]
    print(
        write_results_page(
            args.out, "Memory of one removal task", "python benchmarks/remove_memory.py --demo DEMO_OUT", body, notes
        )
    )


if __name__ == "__main__":
    main()
