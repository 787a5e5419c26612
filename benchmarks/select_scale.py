"""Selection at scale: wall time and peak memory of the curation selection stage at 100k, 300k
and 1M windows with 512-d embeddings, against the row-based selection it replaced.

Synthetic work shards (what the analysis stage writes: WINDOW_SCHEMA, 100k rows per file,
720 windows per source = 1-hour sources, embeddings drawn around 3,000 directions so k-means has
structure) are written once per size. Each measurement runs in a fresh process, which imports
what selection needs (numpy, pyarrow, torch, faiss), notes its RSS, resets its peak-RSS mark
(`/proc/self/clear_refs`) and prints the peak (`VmHWM`) at the end: the whole selection
process's peak, and how much of it the selection itself added. The selection is what
`g2w curate` runs: `read_shards` then `select_table` with the full protocol (K_max 2048, 15 iterations, 500k training cap), k-means here in-process on CPU
(numpy BLAS on every core; in the job the same function runs as one Ray task).

Peer: the previous selection began by turning the window table into Python rows
(`to_pylist`) and stacking their embeddings; the peer is that first step alone, on the same
shards, at the sizes where it fits in memory. It is not like for like with the full selection
(it does no k-means), it is the part the columnar path removes.

`--kmeans-iters N` runs k-means with fewer iterations than the protocol's 15: the peak memory is
the same (k-means holds the same arrays whatever the count) and the k-means time scales with N,
which lets the 1M size run within a 10-minute slot on this shared 2-core machine.

Usage: python benchmarks/select_scale.py [--sizes 100000 300000 1000000] [--kmeans-iters 15] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

_SHARD_ROWS = 100_000
_PER_SOURCE = 720
_DIM = 512

_CHILD = """
import sys, time, json
import numpy as np
from g2w.curate.config import CurateConfig
from g2w.curate.select import local_kmeans, select_table
from g2w.curate.work_shards import read_shards
import faiss, torch  # what k-means imports, loaded before the clock starts in both modes

def status(key):
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith(key))

base = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) restarts here: not the imports', nor the parent's from before exec
mode, shard_dir, iters = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg = CurateConfig(kmeans_iters=iters)
t0 = time.perf_counter()
windows = read_shards(shard_dir)
kmeans_s = 0.0
if mode == "columnar":
    cluster = local_kmeans(cfg)
    def timed(x):
        global kmeans_s
        t = time.perf_counter()
        labels = cluster(x)
        kmeans_s = time.perf_counter() - t
        return labels
    table, k = select_table(windows, cfg, timed)
    n = table.num_rows
else:
    rows = windows.to_pylist()
    emb = np.array([r["embedding"] for r in rows], np.float32)
    n = len(rows)
wall = time.perf_counter() - t0
peak = status("VmHWM:")
print(json.dumps({"rows": n, "wall_s": wall, "kmeans_s": kmeans_s, "peak_mb": peak / 1024, "base_mb": base / 1024}))
"""


def write_shards(shard_dir: str, n: int, seed: int = 0) -> None:
    """n synthetic analysed windows in WINDOW_SCHEMA, as the analysis stage would leave them."""
    from g2w.curate.rows import MEASURES, WINDOW_SCHEMA
    from g2w.curate.work_shards import embedding_column

    os.makedirs(shard_dir, exist_ok=True)
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((3000, _DIM)).astype(np.float32)
    for part, start in enumerate(range(0, n, _SHARD_ROWS)):
        m = min(_SHARD_ROWS, n - start)
        idx = np.arange(start, start + m)
        emb = centres[rng.integers(0, len(centres), m)] + 0.6 * rng.standard_normal((m, _DIM)).astype(np.float32)
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        source = np.char.add("src", (idx // _PER_SOURCE).astype(str))
        window = (idx % _PER_SOURCE).astype(np.int32)
        cols = {
            "clip_id": pa.array(np.char.add(np.char.add(source, "-"), np.char.zfill(window.astype(str), 5))),
            "source_id": pa.array(source),
            "source": pa.array(np.char.add(source, ".mp4")),
            "window_index": pa.array(window),
            "start_s": pa.array(window * 5.0),
            "end_s": pa.array(window * 5.0 + 5),
            "status": pa.array(np.full(m, "ok")),
            "reason": pa.array(np.full(m, "")),
            "error": pa.array(np.full(m, "")),
            "width": pa.array(np.full(m, 1920, np.int32)),
            "height": pa.array(np.full(m, 1080, np.int32)),
            "fps": pa.array(np.full(m, 30.0)),
            "rotation": pa.array(np.zeros(m, np.int32)),
            **{name: pa.array(rng.random(m) * (300 if name == "sharpness" else 0.3)) for name in MEASURES},
            "samples": pa.array(np.full(m, 40, np.int32)),
            "cut_count": pa.array((rng.random(m) < 0.05).astype(np.int32)),
            "cut_times": pa.ListArray.from_arrays(pa.array(np.zeros(m + 1, np.int32)), pa.array([], pa.float64())),
            "embedding": embedding_column(emb, np.ones(m, bool)),
        }
        # columns selection does not read (e.g. cut_detector) get the analysis stage's neutral value
        table = pa.table(
            {f.name: cols[f.name].cast(f.type) if f.name in cols else _neutral(f, m) for f in WINDOW_SCHEMA},
            schema=WINDOW_SCHEMA,
        )
        pq.write_table(table, os.path.join(shard_dir, f"part-{part:05d}.parquet"))


def _neutral(field: pa.Field, m: int) -> pa.Array:
    """A column of the analysis stage's default for a field the generator does not fill."""
    from g2w.curate.rows import base_row
    from g2w.curate.windows import Window

    default = base_row(
        {"source_id": "s", "path": "s", "width": 0, "height": 0, "fps": 0, "rotation": 0}, Window(0, 0, 5)
    )
    return pa.array([default.get(field.name)] * m, field.type)


def measure(mode: str, shard_dir: str, iters: int) -> dict:
    import json

    out = subprocess.run(
        [sys.executable, "-c", _CHILD, mode, shard_dir, str(iters)], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000, 1_000_000])
    parser.add_argument("--peer-up-to", type=int, default=100_000, help="largest size the row-based peer runs at")
    parser.add_argument("--workdir", default="/tmp/g2w_bench_select")
    parser.add_argument("--results", default="docs/results/select_scale.md", help="results page to write")
    parser.add_argument(
        "--kmeans-iters",
        type=int,
        default=15,
        help="k-means iterations (the protocol's 15 by default; memory does not depend on it, "
        "k-means time is linear in it)",
    )
    args = parser.parse_args()
    print(
        f"{'windows':>9} {'mode':>9} {'wall s':>8} {'k-means s':>10} {'peak MB':>8} {'after imports MB':>17}",
        flush=True,
    )
    results = {}
    for n in args.sizes:
        shard_dir = os.path.join(args.workdir, f"n{n}")
        if not os.path.isdir(shard_dir):
            write_shards(shard_dir, n)
        modes = ["columnar"] + (["rows"] if n <= args.peer_up_to else [])
        for mode in modes:
            r = results[(n, mode)] = measure(mode, shard_dir, args.kmeans_iters)
            print(
                f"{n:>9} {mode:>9} {r['wall_s']:>8.1f} {r['kmeans_s']:>10.1f} {r['peak_mb']:>8.0f} {r['base_mb']:>17.0f}",
                flush=True,
            )
    _write_page(args, results)
    sizes = sorted(n for n, mode in results if mode == "columnar")
    if len(sizes) > 1:
        lo, hi = results[(sizes[0], "columnar")], results[(sizes[-1], "columnar")]
        print(
            f"growth {sizes[0]} -> {sizes[-1]} windows (x{sizes[-1] / sizes[0]:.0f}): "
            f"peak memory x{(hi['peak_mb'] - hi['base_mb']) / max(lo['peak_mb'] - lo['base_mb'], 1):.1f} above the import baseline, "
            f"wall x{hi['wall_s'] / lo['wall_s']:.1f}"
        )
    for n in sizes:
        if (n, "rows") in results:
            col, rows = results[(n, "columnar")], results[(n, "rows")]
            print(
                f"{n} windows: rows peer, conversion alone / columnar selection, non-k-means part: time "
                f"x{rows['wall_s'] / max(col['wall_s'] - col['kmeans_s'], 1e-9):.1f}, peak memory "
                f"x{(rows['peak_mb'] - rows['base_mb']) / max(col['peak_mb'] - col['base_mb'], 1):.1f} (above imports)"
            )


def _write_page(args, results: dict) -> None:
    from g2w.io.results_page import markdown_table, write_results_page

    rows = [
        [
            n,
            mode,
            f"{r['wall_s']:.1f}",
            f"{r['kmeans_s']:.1f}",
            f"{r['peak_mb']:.0f}",
            f"{r['peak_mb'] - r['base_mb']:.0f}",
        ]
        for (n, mode), r in sorted(results.items())
    ]
    body = markdown_table(["windows", "mode", "wall s", "k-means s", "peak MB", "peak above imports MB"], rows)
    sizes = " ".join(str(n) for n in args.sizes)
    write_results_page(
        args.results,
        "Selection at scale: wall time and peak memory",
        f"python benchmarks/select_scale.py --sizes {sizes} --kmeans-iters {args.kmeans_iters}",
        body,
        [
            "Synthetic work shards, 512-d embeddings; `rows` is the old first step (to_pylist) alone, not a full selection."
        ],
    )


if __name__ == "__main__":
    main()
