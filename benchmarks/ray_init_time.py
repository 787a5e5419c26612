"""What starting the embedded local Ray costs, with and without the dashboard process.

The local cluster runs the dashboard because it serves the State API that Ray Train's
placement-group cleaner polls (`g2w.runtime.ray_init.local_state_api_options`); this measures what
that adds to a start. Each start runs in a fresh process, the two modes taking turns so a change in
the machine's load falls on both; it reports the wall time of `ray.init`, of the first task after
it, and the CPU seconds the cluster's processes used by then (less sensitive to other load than
wall time).

    python benchmarks/ray_init_time.py --repeats 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from g2w.io.results_page import markdown_table, write_results_page

_PROBE = r"""
import json, logging, sys, time
import psutil, ray
from g2w.runtime.ray_init import local_state_api_options
opts = local_state_api_options() if sys.argv[1] == "dashboard" else {"include_dashboard": False}
t = time.perf_counter()
ray.init(num_cpus=2, logging_level=logging.WARNING, log_to_driver=False, **opts)
init_s = time.perf_counter() - t
t = time.perf_counter()
ray.get(ray.remote(lambda: 1).remote())
task_s = time.perf_counter() - t
cpu = 0.0
for p in psutil.Process().children(recursive=True):
    try:
        c = p.cpu_times()
        cpu += c.user + c.system
    except psutil.Error:
        pass
ray.shutdown()
print(json.dumps({"init_s": init_s, "first_task_s": task_s, "cluster_cpu_s": cpu}))
"""

MODES = {"no dashboard (before)": "none", "dashboard + State API address (now)": "dashboard"}


def _probe(mode: str) -> dict:
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="docs/results/ray_init.md")
    args = ap.parse_args()
    runs: dict[str, list[dict]] = {name: [] for name in MODES}
    loads = []
    for _ in range(args.repeats):
        for name, mode in MODES.items():
            loads.append(os.getloadavg()[0])
            runs[name].append(_probe(mode))
            print(name, runs[name][-1], flush=True)
    rows = []
    for name, samples in runs.items():
        rows.append(
            [name, len(samples)]
            + [statistics.median(s[k] for s in samples) for k in ("init_s", "first_task_s", "cluster_cpu_s")]
        )
    body = markdown_table(["mode", "starts", "ray.init s (median)", "first task s", "cluster CPU s"], rows)
    notes = [
        f"1-minute load average during the runs: {min(loads):.1f} to {max(loads):.1f} (other work shared the cores).",
        "`ray.init(num_cpus=2)`, quiet logging; CPU is the cluster processes' user+system time at the first task.",
    ]
    cmd = f"python benchmarks/ray_init_time.py --repeats {args.repeats}"
    print(write_results_page(args.out, "Starting the local Ray cluster", cmd, body, notes))


if __name__ == "__main__":
    main()
