"""Peak memory of the curation driver as the corpus grows: the job's own driver functions over
N synthetic sources, with the work that runs on the cluster faked.

What runs is `g2w.jobs.curate`'s stage functions, unchanged: `windows_expected`,
`analyse_stage` (pending segments from the work shards, then the shards merged, filtered and
compacted), `select_stage` (checks, sampling and dedup, columnar), `standardize_stage` (results
merged in Arrow) and `write_outputs` (the sharded manifest, stale-clip removal, summary and
report). Only what the cluster does is replaced: the Ray Data executor by an in-process loop over
batches, probing by a synthetic sources table (`sources.parquet`, as the probe stage writes it),
decoding and embedding by a fake analysis step that returns window rows of the real
WINDOW_SCHEMA (appearance-descriptor width, no decoding), k-means (a Ray task in the job) by a
nearest-of-random-centres assignment, and encoding by a step that reports every clip written.
The real `WriteShards` writes the work shards. So the peak is the driver's bookkeeping plus the
in-process fakes' transient batches, which are small and do not grow with N. Long mode runs
`g2w.jobs.curate_long.long_stages` the same way over minute-long sources (segment planning from
the written decisions and shards, segment encoding faked).

Each size runs in a fresh child process that resets its peak-RSS mark after the imports
(`/proc/self/clear_refs`) and prints `VmHWM` and its wall and CPU time at the end. The page
reports, between consecutive sizes, the ratio of RSS growth (peak minus the post-import base)
to size growth: under 1 is sub-linear.

Usage: python benchmarks/driver_memory.py [--sizes 1000 10000 100000] [--long-sizes 100 1000 10000]
       [--modes window long] [--results docs/results/driver_memory.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

_CHILD = r"""
import json, os, resource, sys, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from g2w.curate.appearance import DIM
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import CurateConfig
from g2w.curate.embed import EmbedCentralFrames
from g2w.curate.rows import MEASURES
from g2w.curate.segment_clips import StandardizeSegments
from g2w.curate.segments import SegmentConfig
from g2w.curate.standardize import StandardizeClips
from g2w.jobs import curate, curate_long
from g2w.video.sources import SOURCES_SCHEMA

def status(key):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

n, out, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rng = np.random.default_rng(0)
CENTRES = rng.standard_normal((500, DIM)).astype(np.float32)


class LocalDataset:
    # Ray Data's iter_batches over a table, with the steps run in this process, batch by batch.
    def __init__(self, table, steps=()):
        self.table, self.steps = table, list(steps)

    def iter_batches(self, batch_format="numpy", batch_size=256):
        for start in range(0, self.table.num_rows, 256):
            part = self.table.slice(start, 256)
            batch = {c: part.column(c).to_numpy(zero_copy_only=False) for c in part.column_names}
            for step in self.steps:
                batch = step(batch)
            yield batch


def no_cuts(m):
    out = np.empty(m, dtype=object)
    for i in range(m):
        out[i] = ()
    return out


def fake_analysis(batch):
    # Window rows of the segments in the batch, as AnalyzeWindows + EmbedCentralFrames give them.
    first, end = batch["first_window"].astype(np.int64), batch["end_window"].astype(np.int64)
    per = end - first
    owner = np.repeat(np.arange(len(per)), per)
    index = (np.arange(per.sum()) - np.repeat(np.cumsum(per) - per, per) + first[owner]).astype(np.int32)
    sid = np.asarray(batch["source_id"]).astype(str)[owner]
    m = len(owner)
    # long mode: one scene per source, so its windows run on into segments; else a scene per window
    scene = np.char.lstrip(sid, "s").astype(np.int64) if mode == "long" else rng.integers(0, len(CENTRES), m)
    emb = CENTRES[scene % len(CENTRES)] + 0.5 * rng.standard_normal((m, DIM)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    cols = {
        "clip_id": np.char.add(np.char.add(sid, "-"), np.char.zfill(index.astype(str), 5)),
        "source_id": sid,
        "source": np.asarray(batch["path"]).astype(str)[owner],
        "window_index": index,
        "start_s": index * 5.0,
        "end_s": index * 5.0 + 5.0,
        "status": np.full(m, "ok"),
        "reason": np.full(m, ""),
        "error": np.full(m, ""),
        **{c: np.asarray(batch[c])[owner] for c in ("width", "height", "fps", "rotation")},
        **{k: rng.random(m) * 0.05 for k in MEASURES},  # below every rejection threshold
        "luma_mean": 60 + 140 * rng.random(m),
        "sharpness": 20 + 280 * rng.random(m),
        "samples": np.full(m, 40, np.int32),
        "cut_count": np.zeros(m, np.int32),
        "cut_times": no_cuts(m),
        "cut_detector": np.full(m, "heuristic"),
        "embedding": emb,
        "has_embedding": np.ones(m, bool),
    }
    return cols


def fake_standardize(batch, key="clip_id"):
    ids = np.asarray(batch[key]).astype(str)
    return {key: ids, "clip_path": np.char.add("clips/", np.char.add(ids, ".mp4")),
            "std_status": np.full(len(ids), "ok"), "std_error": np.full(len(ids), "")}


def local_steps(ds, steps):
    swapped = []
    for step in steps:
        if isinstance(step, AnalyzeWindows):
            swapped.append(fake_analysis)
        elif isinstance(step, EmbedCentralFrames):
            continue  # the fake analysis already carries the embedding
        elif isinstance(step, StandardizeClips):
            swapped.append(fake_standardize)
        elif isinstance(step, StandardizeSegments):
            swapped.append(lambda batch: fake_standardize(batch, "segment_id"))
        else:
            swapped.append(step)  # WriteShards: the real one
    return LocalDataset(ds.table, swapped)


def fake_kmeans(x):
    # The k-means task's answer (labels), cheaply: k-means runs outside the driver in the job.
    centres = x[rng.choice(len(x), size=min(64, len(x)), replace=False)].astype(np.float32)
    return np.concatenate([np.argmax(x[i:i + 4096].astype(np.float32) @ centres.T, axis=1)
                           for i in range(0, len(x), 4096)]).astype(np.int64)


for module in (curate, curate_long):
    module.dataset_from_table = lambda table, rows_per_block=1: LocalDataset(table)
    module.apply_steps = local_steps
curate._kmeans_task = lambda cfg, device: fake_kmeans

idx = np.arange(n)
bad, short = idx % 50 == 0, idx % 10 == 3
sources = pa.table({
    "source_id": pa.array(np.char.add("s", np.char.zfill(idx.astype(str), 7))),
    "path": pa.array(np.char.add(np.char.add("/in/s", idx.astype(str)), ".mp4")),
    "size_bytes": pa.array(np.full(n, 1 << 22)),
    "status": pa.array(np.where(bad, "error", "ok")),
    "reason": pa.array(np.where(bad, "unreadable", "")),
    "error": pa.array(np.where(bad, "moov atom not found", "")),
    "has_video": pa.array(~bad),
    "width": pa.array(np.full(n, 1280)), "height": pa.array(np.full(n, 720)),
    "fps": pa.array(np.full(n, 30.0)),
    "frame_count": pa.array(np.where(short, 90, 300 + 150 * (idx % 3))),
    # window mode: 0, 2, 3 or 4 windows; long mode: minutes (0, 24, 36 or 48 windows)
    "duration_s": pa.array(np.where(short, 3.0, (10.0 + 5.0 * (idx % 3)) * (12 if mode == "long" else 1))),
    "codec": pa.array(np.full(n, "h264")),
    "rotation": pa.array(np.zeros(n)),
})
sources = pa.table({f.name: sources.column(f.name).cast(f.type) for f in SOURCES_SCHEMA}, schema=SOURCES_SCHEMA)
os.makedirs(out, exist_ok=True)
pq.write_table(sources, os.path.join(out, "sources.parquet"))
del sources

base = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
t0, c0 = time.perf_counter(), time.process_time()
cfg = CurateConfig()
run = curate._Run(out, cfg, ui_screen={"requested": "static-edges", "used": "static-edges", "fallback_reason": ""})
curate.storage.makedirs(run.shard_dir)
curate.storage.makedirs(run.clip_dir)
sources = pq.read_table(os.path.join(out, "sources.parquet"))  # what probe_stage returns
run.lap("probe")
expected = curate.windows_expected(sources, cfg.window_s)
if mode == "long":
    summary = curate_long.long_stages(run, sources, SegmentConfig())
    windows, kept = int(expected.column("expected").to_numpy().sum()), summary["segments"]["kept"]
else:
    windows, touched = curate.analyse_stage(run, expected)
    manifest, k = curate.select_stage(run, windows)
    del windows
    manifest = curate.standardize_stage(run, manifest)
    summary = curate.write_outputs(run, sources, expected, manifest, k, touched)
    windows, kept = summary["counts"]["windows"], summary["counts"]["kept"]
print(json.dumps({
    "mode": mode, "sources": n, "windows": windows, "kept": kept,
    "rejected_by_reason": summary["rejected_by_reason"],
    "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
    "peak_mb": status("VmHWM:") / 1024, "base_mb": base / 1024, "timings_s": run.timings,
}))
"""


def measure(n: int, workdir: str, mode: str) -> dict:
    out = os.path.join(workdir, f"{mode}-{n}")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(n), out, mode], capture_output=True, text=True, env=env)
    if proc.returncode:
        raise RuntimeError(f"{mode} size {n} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def _table(results: list[dict], unit: str) -> list[str]:
    lines = [
        f"| sources | windows | kept {unit} | peak RSS MB | growth MB | wall s | CPU s | growth ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    prev = None
    for r in results:
        growth = r["peak_mb"] - r["base_mb"]
        ratio = ""
        if prev is not None:
            prev_growth = prev["peak_mb"] - prev["base_mb"]
            ratio = f"{(growth / prev_growth) / (r['sources'] / prev['sources']):.2f}"
        lines.append(
            f"| {r['sources']:,} | {r['windows']:,} | {r['kept']:,} | {r['peak_mb']:.0f} | {growth:.0f} | "
            f"{r['wall_s']:.1f} | {r['cpu_s']:.1f} | {ratio} |"
        )
        prev = r
    big = results[-1]
    return lines + [
        "",
        f"At the largest size the growth is {(big['peak_mb'] - big['base_mb']) * 1024 / big['windows']:.1f} KB per "
        f"window; the analysed window table's embeddings alone are {big['windows'] * 360 * 2 / 2**20:.0f} MB of "
        "float16 there. Per-stage driver seconds: " + json.dumps(big["timings_s"]),
    ]


def page(results: dict[str, list[dict]], command: str, skipped: list[str]) -> str:
    lines = [
        "# Curation driver memory against corpus size",
        "",
        f"Command: `{command}`  ",
        f"Commit: {_commit()}  ",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other jobs), Python {platform.python_version()}  ",
        f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        "",
        "The job's driver functions over synthetic sources, with the cluster's work faked (no decoding: "
        "window rows of the real WINDOW_SCHEMA with 360-d appearance embeddings; k-means labels by nearest "
        "random centre; encoding reported done). One fresh process per size; peak is `VmHWM` after the "
        "imports, growth is peak minus the post-import RSS. Wall and CPU time are of the driver steps. "
        "Growth ratio: (RSS growth factor) / (size factor) against the row above; under 1 means the "
        "driver's memory grows sub-linearly with the number of sources.",
    ]
    if "window" in results:
        lines += [
            "",
            "## Window mode",
            "",
            "`g2w.jobs.curate`: expected windows, analyse, select, standardize, write outputs; sources of "
            "3-20 s (0-4 windows).",
            "",
            *_table(results["window"], "clips"),
            "",
            "What still grows with the corpus is the analysed window table with its embeddings, which "
            "selection reads whole on the driver, and its copies while it is filtered, compacted and sorted; "
            "the per-source bookkeeping is Arrow columns. Kept clips stop at the default candidate cap (100,000).",
        ]
    if "long" in results:
        lines += [
            "",
            "## Long mode",
            "",
            "`g2w.jobs.curate_long.long_stages`: the same analyse and select stages, then the window decisions "
            "written, segments planned one source bucket at a time from the decisions and the work shards "
            "(column selection, no window rows), segments standardized, outputs written; sources of 3 s or "
            "2-4 min (0-48 windows), 30-120 s segments.",
            "",
            *_table(results["long"], "segments"),
        ]
    if skipped:
        lines += ["", f"Not run (did not fit in the time available on this loaded machine): {', '.join(skipped)}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000], help="sources, window mode")
    ap.add_argument("--long-sizes", type=int, nargs="+", default=[100, 1000, 10000], help="sources, long mode")
    ap.add_argument("--modes", nargs="+", choices=("window", "long"), default=["window", "long"])
    ap.add_argument("--budget-s", type=float, default=1500.0, help="skip sizes once this much wall time is spent")
    ap.add_argument("--results", default="docs/results/driver_memory.md")
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    results: dict[str, list[dict]] = {}
    skipped: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        for mode in args.modes:
            for n in sorted(args.sizes if mode == "window" else args.long_sizes):
                if results.get(mode) and time.perf_counter() - t0 > args.budget_s:
                    skipped.append(f"{mode} {n}")
                    continue
                r = measure(n, work, mode)
                print(json.dumps(r), flush=True)
                results.setdefault(mode, []).append(r)
    command = "python benchmarks/driver_memory.py " + " ".join(sys.argv[1:])
    text = page(results, command.strip(), skipped)
    os.makedirs(os.path.dirname(args.results) or ".", exist_ok=True)
    with open(args.results, "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
