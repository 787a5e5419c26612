"""The curation job: raw gameplay videos -> a clean, diverse corpus of standardized 5 s clips.

Stages, each a Ray Data pipeline or a driver step:
1. probe every input (tasks) -> `sources.parquet`;
2. analyse each pending source in one streaming decode (tasks), embed the window centre crops
   (actor pool, GPU when the cluster has one), write work shards;
3. merge the shards, then cluster, sample, dedup (driver, torch on GPU if the driver has one);
4. standardize the kept windows (tasks) -> `clips/<clip_id>.mp4`;
5. `manifest.parquet`, `summary.json`, `report.html`.
Rerunning with the same output skips sources already in the shards and clips already written;
selection is recomputed (it is deterministic and cheap next to decoding). The output may be a
local folder or a bucket prefix (`s3://bucket/run`): workers publish their shards and clips
there themselves, and the driver writes the tables and the report there too.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import CurateConfig
from g2w.curate.embed import EmbedCentralFrames
from g2w.curate.report import write_report
from g2w.curate.rows import MANIFEST_SCHEMA, SELECTION_FIELDS, source_error_row
from g2w.curate.select import select
from g2w.curate.shards import WriteShards, compact, read_shards, windows_written
from g2w.curate.standardize import StandardizeClips
from g2w.curate.windows import plan_windows
from g2w.models.clip_embedder import ClipSpec
from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.sources import SOURCES_SCHEMA, ProbeSources
from g2w import storage
from g2w.storage import expand_inputs


class NothingToDo(ValueError):
    """No input could be processed at all (the job's only failing exit besides bad arguments)."""


def _device(cfg: CurateConfig, cluster: dict) -> str:
    if cfg.device != "auto":
        return cfg.device
    return "cuda" if cluster.get("GPU", 0) > 0 else "cpu"


def _drain(ds) -> int:
    """Run a dataset to the end for its side effects; returns the rows that came out."""
    rows = 0
    for batch in ds.iter_batches(batch_format="numpy", batch_size=1024):
        if batch:
            rows += len(next(iter(batch.values())))
    return rows


@dataclass
class _Run:
    """Where one curation run writes, and what it has measured so far."""

    output: str
    cfg: CurateConfig
    device: str = "cpu"
    timings: dict = field(default_factory=dict)
    clock: float = field(default_factory=time.perf_counter)

    @property
    def shard_dir(self) -> str:
        return storage.join(self.output, "work", "windows")

    @property
    def clip_dir(self) -> str:
        return storage.join(self.output, "clips")

    def lap(self, name: str) -> None:
        """Record the time since the previous lap as stage `name`."""
        now = time.perf_counter()
        self.timings[name] = round(now - self.clock, 3)
        self.clock = now
        print(f"  {name}: {self.timings[name]:.1f} s", flush=True)


def run_curate(inputs: list[str], output: str, cfg: CurateConfig = CurateConfig()) -> dict:
    run = _Run(storage.absolute(output), cfg)
    storage.makedirs(run.shard_dir)
    storage.makedirs(run.clip_dir)
    paths = expand_inputs(inputs)
    if not paths:
        raise NothingToDo(f"no input files found in {inputs}")
    run.device = _device(cfg, init_ray())
    run.clock = time.perf_counter()

    sources = probe_stage(run, paths)
    expected = windows_expected(sources, cfg.window_s)
    windows, analysed_sources = analyse_stage(run, sources, expected)
    rows, k = select_stage(run, windows)
    standardize_stage(run, [r for r in rows if r["status"] == "kept"])
    summary = write_outputs(run, sources, expected, rows, k, analysed_sources)
    if not expected:
        raise NothingToDo("no input could be read as a video; see sources.parquet for why")
    return summary


def probe_stage(run: _Run, paths: list[str]) -> list[dict]:
    """Stage 1: every input probed (tasks) into `sources.parquet`; returns its rows."""
    print(f"[1/4] probing {len(paths)} inputs", flush=True)
    ds = apply_steps(dataset_from_rows([{"path": p} for p in paths]), [ProbeSources()])
    table_path = storage.join(run.output, "sources.parquet")
    write_parquet(ds, table_path, SOURCES_SCHEMA)
    run.lap("probe")
    return pq.read_table(table_path).to_pylist()


def windows_expected(sources: list[dict], window_s: float) -> dict[str, int]:
    """Complete windows per readable source (0 for one shorter than a window)."""
    return {s["source_id"]: len(plan_windows(s["duration_s"], window_s)) for s in sources if s["status"] == "ok"}


def analyse_stage(run: _Run, sources: list[dict], expected: dict[str, int]) -> tuple[pa.Table, int]:
    """Stage 2: sources not yet in the work shards are analysed and embedded (tasks, then an
    actor pool); returns every window of the current inputs and how many sources ran now."""
    done = windows_written(read_shards(run.shard_dir))
    pending = [s for s in sources if s["status"] == "ok" and expected[s["source_id"]] > done.get(s["source_id"], 0)]
    print(f"[2/4] analysing and embedding {len(pending)} sources ({len(expected) - len(pending)} already done), "
          f"{'CLIP' if run.cfg.uses_clip else 'appearance descriptor'} on {run.device}", flush=True)
    if pending:
        cfg = run.cfg
        steps = [
            AnalyzeWindows(cfg.window_s, cfg.analysis_fps, cfg.analysis_short_side, cfg.ui_detector, cfg.quality),
            EmbedCentralFrames(_clip_spec(cfg, run.device), cfg.embed_batch_size),
            WriteShards(run.shard_dir),
        ]
        _drain(apply_steps(dataset_from_rows(pending), steps))
    windows = read_shards(run.shard_dir)
    current = pa.array([sid in expected for sid in windows.column("source_id").to_pylist()], pa.bool_())
    windows = windows.filter(current)
    compact(run.shard_dir, windows)
    run.lap("analyse_embed")
    return windows, len(pending)


def select_stage(run: _Run, windows: pa.Table) -> tuple[list[dict], int]:
    """Stage 3: checks, clusters, sampling and dedup over every analysed window (driver);
    returns the window rows with their verdicts and the cluster count."""
    print(f"[3/4] selecting among {windows.num_rows} windows", flush=True)
    rows = windows.to_pylist()
    analysed = [i for i, r in enumerate(rows) if r["status"] == "ok"]
    if analysed:
        emb = np.array([rows[i]["embedding"] for i in analysed], np.float32).reshape(len(analysed), -1)
    else:
        emb = np.zeros((0, 1), np.float32)
    device = run.device if _driver_has(run.device) else "cpu"
    verdicts = select([rows[i] for i in analysed], emb, run.cfg, device)
    for name, _ in SELECTION_FIELDS:
        for r in rows:
            r.setdefault(name, [] if name == "checks_failed" else None)
    for j, i in enumerate(analysed):
        for key in ("status", "reason", "checks_failed", "dup_of"):
            rows[i][key] = verdicts[key][j]
        rows[i]["cluster"] = int(verdicts["cluster"][j])
        rows[i]["sampled"] = bool(verdicts["sampled"][j])
        sim = verdicts["dup_similarity"][j]
        rows[i]["dup_similarity"] = None if np.isnan(sim) else float(sim)
    run.lap("select")
    return rows, verdicts.get("k", 0)


def standardize_stage(run: _Run, kept: list[dict]) -> None:
    """Stage 4: kept windows re-encoded (tasks) to `clips/<clip_id>.mp4`; a failure turns the
    row into an error with its reason."""
    cfg = run.cfg
    print(f"[4/4] standardizing {len(kept)} kept windows to {cfg.out_width}x{cfg.out_height} @ {cfg.out_fps} fps",
          flush=True)
    _standardize(kept, run.clip_dir, cfg)
    run.lap("standardize")


def write_outputs(run: _Run, sources, expected, rows, k, analysed_sources) -> dict:
    """Stage 5: `manifest.parquet` (every input accounted for), `summary.json`, `report.html`;
    clips no longer kept are removed. Returns the summary."""
    rows += [source_error_row(s) for s in sources if s["status"] != "ok" or expected[s["source_id"]] == 0]
    rows.sort(key=lambda r: (r["source"], r["window_index"]))
    table = pa.Table.from_pylist(rows, schema=MANIFEST_SCHEMA)
    with storage.staged_file(storage.join(run.output, "manifest.parquet")) as local:
        pq.write_table(table, local)
    _remove_stale_clips(run.clip_dir, {r["clip_id"] for r in rows if r["status"] == "kept"})
    summary = _summary(sources, rows, k, run.cfg, run.device, run.timings, analysed_sources)
    storage.write_json(storage.join(run.output, "summary.json"), summary)
    with storage.staged_dir(run.output) as local:
        write_report(local, rows, summary, run.cfg, clip_root=run.output)
    print(f"manifest: {run.output}/manifest.parquet\n"
          f"clips:    {run.clip_dir} ({summary['counts']['kept']})\n"
          f"summary:  {run.output}/summary.json\n"
          f"report:   {run.output}/report.html", flush=True)
    return summary


def _clip_spec(cfg: CurateConfig, device: str) -> ClipSpec | None:
    """What the embedding stage loads: CLIP, or None for the appearance descriptor."""
    return ClipSpec(cfg.clip_model, cfg.clip_pretrained, device, cfg.seed) if cfg.uses_clip else None


def _embedder_record(cfg: CurateConfig, device: str) -> dict:
    """The embedder actually used, for the summary and the report."""
    if not cfg.uses_clip:
        return {
            "embedder": "appearance", "model": "appearance descriptor (luma structure, HSV histogram, Lab layout)",
            "pretrained": None, "device": "cpu", "randomly_initialized": False,
            "dedup_threshold": cfg.appearance_dedup_threshold, "clusters": "appearance clusters",
            "warning": "no CLIP weights (--clip-pretrained): near-duplicates and clusters use a deterministic "
                       "appearance descriptor; clusters group look-alike frames, not semantic content",
        }
    return {
        "embedder": "clip", "model": cfg.clip_model, "pretrained": cfg.clip_pretrained, "device": device,
        "randomly_initialized": random_model, "dedup_threshold": cfg.dedup_threshold,
        "clusters": "CLIP clusters",
        "warning": ("embeddings come from a RANDOMLY INITIALIZED CLIP model (no --clip-pretrained): clusters "
                    "and near-duplicate decisions are not semantically meaningful") if random_model else "",
    }


def _driver_has(device: str) -> bool:
    if device != "cuda":
        return True
    import torch

    return torch.cuda.is_available()


def _standardize(kept: list[dict], clip_dir: str, cfg: CurateConfig) -> None:
    if not kept:
        return
    step = StandardizeClips(clip_dir, cfg.out_width, cfg.out_height, cfg.out_fps, cfg.window_s, cfg.crf, cfg.preset)
    fields = ("clip_id", "source", "start_s", "width", "height", "fps", "rotation")
    ds = apply_steps(dataset_from_rows([{k: r[k] for k in fields} for r in kept]), [step])
    results = {}
    for batch in ds.iter_batches(batch_format="numpy", batch_size=256):
        for cid, path, status, error in zip(batch["clip_id"], batch["clip_path"], batch["std_status"], batch["std_error"]):
            results[str(cid)] = (str(path), str(status), str(error))
    for r in kept:
        path, status, error = results.get(r["clip_id"], ("", "error", "standardization did not run"))
        if status == "ok":
            r["clip_path"] = "clips/" + path.rsplit("/", 1)[-1]  # relative to the output, which may be a URI
        else:
            r.update(status="error", reason="standardize_failed", error=error)


def _remove_stale_clips(clip_dir: str, kept_ids: set[str]) -> None:
    """Clips of windows that are no longer kept (a rerun with other inputs or settings) go, so
    the folder always matches the manifest; hidden partial files of killed writers go too."""
    if not storage.is_uri(clip_dir):  # (a bucket never holds partial objects)
        for name in os.listdir(clip_dir):
            if name.startswith("."):
                os.remove(os.path.join(clip_dir, name))
    for path in storage.list_files(clip_dir):
        if os.path.splitext(path.rsplit("/", 1)[-1])[0] not in kept_ids:
            storage.remove(path)


def _summary(sources, rows, k, cfg, device, timings, analysed_sources) -> dict:
    windows = [r for r in rows if r["window_index"] >= 0]
    counts = Counter(r["status"] for r in windows)
    video_s = sum(s["duration_s"] for s in sources if s["status"] == "ok")
    frames = sum(s["frame_count"] for s in sources if s["status"] == "ok")
    analyse_s = timings.get("analyse_embed") or 1e-9
    return {
        "sources": {"total": len(sources), **Counter(s["status"] for s in sources),
                    "errors_by_reason": dict(Counter(s["reason"] for s in sources if s["status"] != "ok"))},
        "counts": {"windows": len(windows), "kept": counts.get("kept", 0), "rejected": counts.get("rejected", 0),
                   "error": counts.get("error", 0), "sampled": sum(bool(r.get("sampled")) for r in windows)},
        "rejected_by_reason": dict(Counter(r["reason"] for r in windows if r["status"] == "rejected")),
        "errors_by_reason": dict(Counter(r["reason"] for r in windows if r["status"] == "error")),
        "checks_failed": dict(Counter(c for r in windows for c in (r.get("checks_failed") or []))),
        "k": k,
        "embedding_model": _embedder_record(cfg, device),
        "timings_s": timings,
        "throughput": {
            "sources_analysed": analysed_sources,
            "source_seconds_per_s": round(video_s / analyse_s, 2) if analysed_sources else None,
            "source_frames_per_s": round(frames / analyse_s, 1) if analysed_sources else None,
            "windows_per_s_select": round(len(windows) / (timings.get("select") or 1e-9), 1),
            "clips_per_s_standardize": round(counts.get("kept", 0) / (timings.get("standardize") or 1e-9), 2),
        },
        "config": asdict(cfg),
    }
