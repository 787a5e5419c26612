"""What `make demo` takes: one fresh `g2w demo` run, its wall time and CPU by stage.

The demo runs in a child process into an empty folder (so no stage reuses earlier work). Wall
time on a shared machine follows the other load, so the page also gives CPU seconds and the load
average seen during the run. The CPU is that of the whole process tree: the demo's driver and
every process whose parent chain leads to it (Ray's raylet, GCS and dashboard, its worker
processes, the encoders they start), sampled with psutil every `--interval` seconds until the
demo exits. A process keeps being counted after it is reparented (a worker whose raylet exited
first), and each process counts its own user + system time once, so nothing is counted twice.
What a process spends after its last sample, or a process that lives less than one interval,
is missed: the figure is a lower bound by at most about one interval per process.

Each stage's CPU is the tree's total between the demo's stage lines (`== k/6 ...` on its
stderr, timestamped as they arrive); the last stage ends at its summary line, and what follows
(the report and Ray's shutdown) is its own row.

`--compare SUMMARY` adds the stage times of an earlier run's `summary.json` (for example one made
by an older commit) as a further column, named by `--compare-label` (a path would name a machine).

    python benchmarks/demo_time.py --compare old_demo_out/summary.json --compare-label "commit abc1234"
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time

import psutil

from g2w.io.results_page import markdown_table, write_results_page

STAGES = ("samples", "curate", "assets", "synthesize", "remove_evaluate", "gamecleaner")
STAGE_LINE = re.compile(r"^== (\d)/6 ")  # the demo's line at the start of stage k
END_LINE = "summary: "  # the demo's line once its last stage is done
GROUPS = ("driver", "Ray workers", "other Ray and helper processes")


class TreeCpu:
    """CPU seconds (user + system) of a process and all its descendants, by sampling."""

    def __init__(self, root: psutil.Process):
        self.root = root
        self.seen: dict[tuple[int, float], psutil.Process] = {}
        self.cpu: dict[tuple[int, float], tuple[str, float]] = {}

    def _group(self, proc: psutil.Process) -> str:
        if proc.pid == self.root.pid:
            return GROUPS[0]
        name = proc.name()
        cmdline = " ".join(proc.cmdline())
        return GROUPS[1] if name.startswith("ray::") or "default_worker.py" in cmdline else GROUPS[2]

    def sample(self) -> float:
        """Samples every known and new descendant; returns the tree's total so far."""
        try:
            found = [self.root, *self.root.children(recursive=True)]
        except psutil.Error:
            found = []
        for proc in found:
            try:
                self.seen.setdefault((proc.pid, proc.create_time()), proc)
            except psutil.Error:
                continue
        for key, proc in list(self.seen.items()):
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    group = self.cpu[key][0] if key in self.cpu else self._group(proc)
                self.cpu[key] = (group, times.user + times.system)
            except psutil.Error:
                del self.seen[key]  # gone: its last sample stays in self.cpu
        return self.total()

    def total(self) -> float:
        return sum(cpu for _, cpu in self.cpu.values())

    def by_group(self) -> dict[str, float]:
        return {g: sum(cpu for group, cpu in self.cpu.values() if group == g) for g in GROUPS}


def _read_lines(stream, lines: queue.Queue) -> None:
    for line in stream:
        sys.stderr.write(line)  # the demo's own log, as `make demo` shows it
        lines.put((time.perf_counter(), line))
    lines.put(None)


def run_demo(output: str, interval: float) -> dict:
    """One `g2w demo` in a child process; its summary with the wall, CPU and load around it."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("RAY_ADDRESS", None)  # the demo's own embedded Ray, as `make demo` runs it
    command = [sys.executable, "-c", "import sys; from g2w.cli import main; sys.exit(main())", "demo"]
    loads = [os.getloadavg()[0]]
    start = time.perf_counter()
    child = subprocess.Popen(
        [*command, "--output", output], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    tree = TreeCpu(psutil.Process(child.pid))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=_read_lines, args=(child.stderr, lines), daemon=True).start()
    marks: list[tuple[str, float, float]] = []  # (row, wall s since start, tree CPU s) at each stage line
    done = False
    while not done:
        tree.sample()
        loads.append(os.getloadavg()[0])
        deadline = time.perf_counter() + interval
        while (wait := deadline - time.perf_counter()) > 0:
            try:
                item = lines.get(timeout=wait)
            except queue.Empty:
                break
            if item is None:
                done = True
                break
            at, line = item
            stage = STAGE_LINE.match(line)
            if stage or line.startswith(END_LINE):
                row = STAGES[int(stage.group(1)) - 1] if stage else "report and shutdown"
                marks.append((row, at - start, tree.sample()))
    code = child.wait()
    tree.sample()
    wall = time.perf_counter() - start
    loads.append(os.getloadavg()[0])
    if code:
        raise SystemExit(f"g2w demo exited with {code}")
    with open(os.path.join(output, "summary.json")) as f:
        summary = json.load(f)
    ends = [*(cpu for _, _, cpu in marks[1:]), tree.total()]
    return {
        "wall_s": wall,
        "cpu_s": tree.total(),
        "cpu_by_group_s": tree.by_group(),
        "cpu_by_stage_s": {row: cpu_end - cpu for (row, _, cpu), cpu_end in zip(marks, ends)},
        "before_first_stage_cpu_s": marks[0][2] if marks else tree.total(),
        "processes": len(tree.cpu),
        "load": {"start": loads[0], "min": min(loads), "max": max(loads), "mean": sum(loads) / len(loads)},
        "timings_s": summary["timings_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", default=None, help="demo folder (default: a temporary one, removed after)")
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between CPU samples")
    ap.add_argument("--compare", default=None, metavar="SUMMARY", help="an earlier run's summary.json")
    ap.add_argument("--compare-label", default="earlier run", help="what the earlier run was, for its column")
    ap.add_argument("--out", default="docs/results/demo_time.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="g2w-demo-time-") as tmp:
        run = run_demo(args.output or tmp, args.interval)
    print(json.dumps(run), flush=True)
    earlier = None
    if args.compare:
        with open(args.compare) as f:
            earlier = json.load(f)["timings_s"]
    header = ["stage", "this run: wall s", "this run: CPU s"] + ([f"{args.compare_label}: wall s"] if earlier else [])
    cpu = run["cpu_by_stage_s"]
    rows = []
    for stage in (*STAGES, "report and shutdown"):
        wall = run["timings_s"].get(stage, "–")
        rows.append(
            [stage, wall, round(cpu[stage], 1) if stage in cpu else "–"]
            + ([earlier.get(stage, "–")] if earlier else [])
        )
    rows.append(
        ["all stages", round(sum(run["timings_s"].values()), 1), round(sum(cpu.get(s, 0.0) for s in STAGES), 1)]
        + ([round(sum(earlier.values()), 1)] if earlier else [])
    )
    body = markdown_table(header, rows)
    load = run["load"]
    groups = ", ".join(f"{g} {s:.0f}" for g, s in run["cpu_by_group_s"].items())
    notes = [
        f"`g2w demo` with its defaults, whole command {run['wall_s']:.0f} s wall (Python and Ray start and the "
        f"report included) and {run['cpu_s']:.0f} CPU s in its process tree ({run['processes']} processes: "
        f"{groups}; {run['before_first_stage_cpu_s']:.0f} before the first stage line).",
        f"CPU: user + system time of the demo and of every process descended from it (Ray's workers included), "
        f"sampled with psutil every {args.interval:g} s; time a process spends after its last sample is missed, "
        "so it is a lower bound. A stage's CPU is the total between its stage line and the next.",
        f"1-minute load average {load['start']:.1f} at the start; during the run min {load['min']:.1f}, mean "
        f"{load['mean']:.1f}, max {load['max']:.1f}, on {os.cpu_count()} cores: a load above the core count means "
        "other work shared them and stretched the wall times (the CPU seconds stretch far less).",
    ]
    cmd = "python benchmarks/demo_time.py" + (
        f" --compare SUMMARY --compare-label '{args.compare_label}'" if earlier else ""
    )
    print(write_results_page(args.out, "What `make demo` takes", cmd, body, notes))


if __name__ == "__main__":
    main()
