"""The curation job: raw gameplay videos -> a clean, diverse corpus of standardized 5 s clips.

Stages, each a Ray Data pipeline or a driver step:
1. probe every input (tasks) -> `sources.parquet`;
2. analyse each pending source in one streaming decode (tasks), embed the window centre crops
   (actor pool, GPU when the cluster has one), write work shards;
3. merge the shards, then cluster, sample, dedup (driver, torch on GPU if the driver has one);
4. standardize the kept windows (tasks) -> `clips/<clip_id>.mp4`;
5. `manifest.parquet`, `summary.json`, `report.html`.
Rerunning with the same output skips sources already in the shards and clips already written;
selection is recomputed (it is deterministic and cheap next to decoding).
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import asdict

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.config import CurateConfig
from g2w.curate.embed import EmbedCentralFrames
from g2w.curate.report import write_report
from g2w.curate.rows import MANIFEST_SCHEMA, SELECTION_FIELDS, source_error_row
from g2w.curate.select import select
from g2w.curate.shards import WriteShards, compact, embedding_column, embedding_matrix, read_shards, windows_written
from g2w.curate.standardize import StandardizeClips
from g2w.curate.windows import plan_windows
from g2w.models.clip_embedder import ClipSpec
from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.sources import SOURCES_SCHEMA, ProbeSources
from g2w.storage import expand_inputs


class NothingToDo(ValueError):
    """No input could be processed at all (the job's only failing exit besides bad arguments)."""


def _device(cfg: CurateConfig, cluster: dict) -> str:
    if cfg.device != "auto":
        return cfg.device
    return "cuda" if cluster.get("GPU", 0) > 0 else "cpu"


def _drain(ds) -> int:
    """Run a dataset to the end for its side effects; returns the rows that came out."""
    return sum(len(next(iter(b.values()))) for b in ds.iter_batches(batch_format="numpy", batch_size=1024) if b)


def _stage(name: str, timings: dict, start: float) -> float:
    now = time.perf_counter()
    timings[name] = round(now - start, 3)
    print(f"  {name}: {timings[name]:.1f} s", flush=True)
    return now


def run_curate(inputs: list[str], output: str, cfg: CurateConfig = CurateConfig()) -> dict:
    output = os.path.abspath(output)
    shard_dir, clip_dir = os.path.join(output, "work", "windows"), os.path.join(output, "clips")
    os.makedirs(shard_dir, exist_ok=True)
    os.makedirs(clip_dir, exist_ok=True)
    paths = expand_inputs(inputs)
    if not paths:
        raise NothingToDo(f"no input files found in {inputs}")
    cluster = init_ray()
    device = _device(cfg, cluster)
    timings: dict = {}
    t = time.perf_counter()

    print(f"[1/4] probing {len(paths)} inputs", flush=True)
    ds = apply_steps(dataset_from_rows([{"path": p} for p in paths]), [ProbeSources()])
    write_parquet(ds, os.path.join(output, "sources.parquet"), SOURCES_SCHEMA)
    sources = pq.read_table(os.path.join(output, "sources.parquet")).to_pylist()
    t = _stage("probe", timings, t)

    expected = {s["source_id"]: len(plan_windows(s["duration_s"], cfg.window_s)) for s in sources if s["status"] == "ok"}
    done = windows_written(read_shards(shard_dir, columns=["clip_id", "source_id"]))
    pending = [s for s in sources if s["status"] == "ok" and expected[s["source_id"]] > done.get(s["source_id"], 0)]
    print(f"[2/4] analysing and embedding {len(pending)} sources ({len(expected) - len(pending)} already done), "
          f"CLIP on {device}", flush=True)
    if pending:
        steps = [
            AnalyzeWindows(cfg.window_s, cfg.analysis_fps, cfg.analysis_short_side, cfg.ui_detector, cfg.quality),
            EmbedCentralFrames(ClipSpec(cfg.clip_model, cfg.clip_pretrained, device, cfg.seed), cfg.embed_batch_size),
            WriteShards(shard_dir),
        ]
        _drain(apply_steps(dataset_from_rows(pending), steps))
    windows = read_shards(shard_dir)
    keep_sources = set(expected)
    windows = windows.filter(pa.array([sid in keep_sources for sid in windows.column("source_id").to_pylist()], pa.bool_()))
    compact(shard_dir, windows)
    t = _stage("analyse_embed", timings, t)

    print(f"[3/4] selecting among {windows.num_rows} windows", flush=True)
    embeddings, present = embedding_matrix(windows)
    rows = windows.drop_columns(["embedding"]).to_pylist()
    for i, r in enumerate(rows):
        r["shard_row"] = i  # where its embedding is, once rows are re-ordered
    analysed = [i for i, r in enumerate(rows) if r["status"] == "ok"]
    emb = embeddings[analysed].astype(np.float32)
    verdicts = select([rows[i] for i in analysed], emb, cfg, device if _driver_has(device) else "cpu")
    for field, _ in SELECTION_FIELDS:
        for r in rows:
            r.setdefault(field, [] if field == "checks_failed" else None)
    for j, i in enumerate(analysed):
        for key in ("status", "reason", "checks_failed", "dup_of"):
            rows[i][key] = verdicts[key][j]
        rows[i]["cluster"] = int(verdicts["cluster"][j])
        rows[i]["sampled"] = bool(verdicts["sampled"][j])
        sim = verdicts["dup_similarity"][j]
        rows[i]["dup_similarity"] = None if np.isnan(sim) else float(sim)
    t = _stage("select", timings, t)

    kept = [r for r in rows if r["status"] == "kept"]
    print(f"[4/4] standardizing {len(kept)} kept windows to {cfg.out_width}x{cfg.out_height} @ {cfg.out_fps} fps", flush=True)
    _standardize(kept, clip_dir, cfg)
    t = _stage("standardize", timings, t)

    rows += [source_error_row(s) for s in sources if s["status"] != "ok" or expected[s["source_id"]] == 0]
    rows.sort(key=lambda r: (r["source"], r["window_index"]))
    pq.write_table(_manifest(rows, embeddings, present), os.path.join(output, "manifest.parquet"))
    _remove_stale_clips(clip_dir, {r["clip_id"] for r in rows if r["status"] == "kept"})
    summary = _summary(sources, rows, verdicts.get("k", 0), cfg, device, timings, len(pending))
    with open(os.path.join(output, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    write_report(output, rows, summary, cfg)
    print(f"manifest: {output}/manifest.parquet\nclips:    {clip_dir} ({summary['counts']['kept']})\n"
          f"summary:  {output}/summary.json\nreport:   {output}/report.html", flush=True)
    if not expected:
        raise NothingToDo("no input could be read as a video; see sources.parquet for why")
    return summary


def _manifest(rows: list[dict], embeddings: np.ndarray, present: np.ndarray) -> pa.Table:
    """Rows plus their embeddings, joined back columnar (rows without one get null)."""
    at = MANIFEST_SCHEMA.get_field_index("embedding")
    table = pa.Table.from_pylist(rows, schema=MANIFEST_SCHEMA.remove(at))
    index = np.array([r.get("shard_row", -1) for r in rows], np.int64)
    has = (index >= 0) & present[np.maximum(index, 0)] if len(present) else np.zeros(len(rows), bool)
    picked = embeddings[np.maximum(index, 0)] if len(embeddings) else np.zeros((len(rows), 1), np.float16)
    return table.add_column(at, MANIFEST_SCHEMA.field(at), embedding_column(picked, has))


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
            r["clip_path"] = os.path.relpath(path, os.path.dirname(clip_dir))
        else:
            r.update(status="error", reason="standardize_failed", error=error)


def _remove_stale_clips(clip_dir: str, kept_ids: set[str]) -> None:
    """Clips of windows that are no longer kept (a rerun with other inputs or settings) go, so
    the folder always matches the manifest; hidden partial files of killed writers go too."""
    for name in os.listdir(clip_dir):
        if name.startswith(".") or os.path.splitext(name)[0] not in kept_ids:
            os.remove(os.path.join(clip_dir, name))


def _summary(sources, rows, k, cfg, device, timings, analysed_sources) -> dict:
    windows = [r for r in rows if r["window_index"] >= 0]
    counts = Counter(r["status"] for r in windows)
    video_s = sum(s["duration_s"] for s in sources if s["status"] == "ok")
    frames = sum(s["frame_count"] for s in sources if s["status"] == "ok")
    analyse_s = timings.get("analyse_embed") or 1e-9
    random_model = not cfg.clip_pretrained
    return {
        "sources": {"total": len(sources), **Counter(s["status"] for s in sources),
                    "errors_by_reason": dict(Counter(s["reason"] for s in sources if s["status"] != "ok"))},
        "counts": {"windows": len(windows), "kept": counts.get("kept", 0), "rejected": counts.get("rejected", 0),
                   "error": counts.get("error", 0), "sampled": sum(bool(r.get("sampled")) for r in windows)},
        "rejected_by_reason": dict(Counter(r["reason"] for r in windows if r["status"] == "rejected")),
        "errors_by_reason": dict(Counter(r["reason"] for r in windows if r["status"] == "error")),
        "checks_failed": dict(Counter(c for r in windows for c in (r.get("checks_failed") or []))),
        "k": k,
        "embedding_model": {
            "model": cfg.clip_model, "pretrained": cfg.clip_pretrained, "device": device,
            "randomly_initialized": random_model,
            "warning": ("embeddings come from a RANDOMLY INITIALIZED CLIP model (no --clip-pretrained): clusters "
                        "and near-duplicate decisions are not semantically meaningful") if random_model else "",
        },
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
