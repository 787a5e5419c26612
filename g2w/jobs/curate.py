"""The curation job: raw gameplay videos -> a clean, diverse corpus of standardized 5 s clips.

Stages, each a Ray Data pipeline or a driver step:
1. probe every input (tasks) -> `sources.parquet`;
2. analyse each pending segment of a source (5 min by default) in one streaming decode (tasks),
   embed the window centre crops
   (actor pool, GPU when the cluster has one), write work shards;
3. merge the shards, then cluster, sample, dedup: columnar on the driver, k-means as one Ray
   task (a GPU node when CLIP runs on GPUs, else every core of the largest node);
4. standardize the kept windows (tasks) -> `clips/<clip_id>.mp4`;
5. `manifest.parquet/` (a sharded Parquet dataset), `summary.json`, `report.html`.
Rerunning with the same output skips sources already in the shards and clips already written;
selection is recomputed (it is deterministic and cheap next to decoding), and only manifest
shards whose rows changed are written again. The output may be a
local folder or a bucket prefix (`s3://bucket/run`): workers publish their shards and clips
there themselves, and the driver writes the tables and the report there too.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.bucketed_table import write_sharded
from g2w.curate.config import CurateConfig
from g2w.curate.driver_tables import (
    expected_windows,
    pending_segments,
    source_counts,
    source_error_table,
    value_counts,
)
from g2w.curate.embed import EmbedCentralFrames
from g2w.curate.select import Kmeans, local_kmeans, select_table
from g2w.curate.standardize import StandardizeClips
from g2w.curate.summary_page import write_report
from g2w.curate.ui_screen import resolve_ui_screen
from g2w.curate.work_shards import WriteShards, compact, read_shards
from g2w.io import storage
from g2w.io.storage import expand_inputs
from g2w.models.clip_embedder import ClipSpec
from g2w.runtime.capacity import gpus_possible
from g2w.runtime.pipeline import apply_steps, batches, dataset_from_rows, dataset_from_table, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.runtime.tasks import call_remote, largest_node_cpus, put
from g2w.video.sources import SOURCES_SCHEMA, ProbeSources

log = logging.getLogger(__name__)


class NothingToDo(ValueError):
    """No input could be processed at all (the job's only failing exit besides bad arguments)."""


def _device(cfg: CurateConfig, cluster: dict) -> str:
    if cfg.device != "auto":
        return cfg.device
    return "cuda" if gpus_possible(cluster) > 0 else "cpu"


def _drain(ds) -> int:
    """Run a dataset to the end for its side effects; returns the rows that came out."""
    rows = 0
    for batch in batches(ds, 1024):
        if batch:
            rows += len(next(iter(batch.values())))
    return rows


@dataclass
class _Run:
    """Where one curation run writes, and what it has measured so far."""

    output: str
    cfg: CurateConfig  # with `ui_detector` resolved to the screen the workers run
    device: str = "cpu"
    ui_screen: dict = field(default_factory=dict)  # requested, used, and why "auto" fell back
    cluster: dict = field(default_factory=dict)  # the resources up at the start
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
        log.debug(f"  {name}: {self.timings[name]:.1f} s")


def run_curate(inputs: list[str], output: str, cfg: CurateConfig = CurateConfig()) -> dict:
    screen, fallback = resolve_ui_screen(cfg.ui_detector)  # once, here: every worker runs the same one
    run = _Run(
        storage.absolute(output),
        replace(cfg, ui_detector=screen),
        ui_screen={"requested": cfg.ui_detector, "used": screen, "fallback_reason": fallback},
    )
    if fallback:
        log.info(f"UI screen: {fallback}; using static-edges")
    storage.makedirs(run.shard_dir)
    storage.makedirs(run.clip_dir)
    paths = expand_inputs(inputs)
    if not paths:
        raise NothingToDo(f"no input files found in {inputs}")
    run.cluster = init_ray(output=run.output)
    run.device = _device(cfg, run.cluster)
    run.clock = time.perf_counter()

    sources = probe_stage(run, paths)
    expected = windows_expected(sources, cfg.window_s)
    windows, analysed_sources = analyse_stage(run, expected)
    manifest, k = select_stage(run, windows)
    del windows
    manifest = standardize_stage(run, manifest)
    summary = write_outputs(run, sources, expected, manifest, k, analysed_sources)
    if not expected.num_rows:
        raise NothingToDo("no input could be read as a video; see sources.parquet for why")
    return summary


def probe_stage(run: _Run, paths: list[str]) -> pa.Table:
    """Stage 1: every input probed (tasks) into `sources.parquet`; returns it as a table (one
    row per input, in Arrow: the driver never holds the sources as Python rows)."""
    log.info(f"[1/4] probing {len(paths)} inputs")
    ds = apply_steps(dataset_from_rows([{"path": p} for p in paths]), [ProbeSources()])
    table_path = storage.join(run.output, "sources.parquet")
    write_parquet(ds, table_path, SOURCES_SCHEMA)
    run.lap("probe")
    with storage.open_binary(table_path) as f:
        return pq.read_table(f)


def windows_expected(sources: pa.Table, window_s: float) -> pa.Table:
    """The readable sources with their complete window count in `expected` (0 for one shorter
    than a window)."""
    return expected_windows(sources, window_s)


def analyse_stage(run: _Run, expected: pa.Table) -> tuple[pa.Table, int]:
    """Stage 2: segments of the readable sources (`expected`, from `windows_expected`) not yet in
    the work shards are analysed and embedded (tasks, then an actor pool); returns every window
    of the current inputs and how many sources had work now."""
    cfg = run.cfg
    done = read_shards(run.shard_dir, columns=["clip_id", "source_id", "window_index"])
    pending = pending_segments(expected, done, cfg.segment_windows)
    del done
    touched = pc.count_distinct(pending.column("source_id")).as_py() if pending.num_rows else 0
    log.info(
        f"[2/4] analysing and embedding {pending.num_rows} segments of {touched} sources "
        f"({expected.num_rows - touched} already done), "
        f"{'CLIP' if cfg.uses_clip else 'appearance descriptor'} on {run.device}, UI screen {cfg.ui_detector}, cuts {cfg.cuts}"
    )
    if pending.num_rows:
        steps = [
            AnalyzeWindows(
                cfg.window_s,
                cfg.analysis_fps,
                cfg.analysis_short_side,
                cfg.ui_detector,
                cfg.quality,
                cuts=cfg.cuts,
                cut_probability=cfg.cut_probability,
            ),
            EmbedCentralFrames(_clip_spec(cfg, run.device), cfg.embed_batch_size, cfg.embed_workers),
            WriteShards(run.shard_dir),
        ]
        _drain(apply_steps(dataset_from_table(pending), steps))
    windows = read_shards(run.shard_dir)
    wanted = pc.cast(expected.column("source_id"), pa.string()).combine_chunks()
    windows = windows.filter(pc.is_in(windows.column("source_id"), value_set=wanted))
    compact(run.shard_dir, windows)
    run.lap("analyse_embed")
    return windows, touched


def select_stage(run: _Run, windows: pa.Table) -> tuple[pa.Table, int]:
    """Stage 3: checks, clusters, sampling and dedup over every analysed window, columnar on the
    driver with k-means as a Ray task; returns the window table with its verdicts and the
    cluster count."""
    log.info(f"[3/4] selecting among {windows.num_rows} windows")
    manifest, k = select_table(windows, run.cfg, _kmeans_task(run.cfg, run.device))
    run.lap("select")
    return manifest, k


def standardize_stage(run: _Run, manifest: pa.Table) -> pa.Table:
    """Stage 4: kept windows re-encoded (tasks) to `clips/<clip_id>.mp4`; returns the manifest
    with their clip paths, a failure turning the row into an error with its reason."""
    cfg = run.cfg
    kept = np.flatnonzero(manifest.column("status").to_numpy(zero_copy_only=False) == "kept")
    log.info(f"[4/4] standardizing {len(kept)} kept windows to {cfg.out_width}x{cfg.out_height} @ {cfg.out_fps} fps")
    manifest = _standardize(manifest, kept, run.clip_dir, cfg)
    run.lap("standardize")
    return manifest


def write_outputs(run: _Run, sources, expected, manifest: pa.Table, k, analysed_sources) -> dict:
    """Stage 5: `manifest.parquet/` (every input accounted for; a folder of per-source-bucket
    shards, of which only changed ones are rewritten), `summary.json`, `report.html`; clips no longer kept are removed. Returns the summary."""
    windowed = expected.filter(pc.greater(expected.column("expected"), 0)).column("source_id").combine_chunks()
    no_windows = sources.filter(pc.invert(pc.is_in(sources.column("source_id"), value_set=windowed)))
    manifest = pa.concat_tables([manifest, source_error_table(no_windows)])
    manifest = manifest.sort_by([("source", "ascending"), ("window_index", "ascending")])
    shards = write_sharded(manifest, storage.join(run.output, "manifest.parquet"))
    log.debug(
        f"  manifest shards: {shards['written']} written, {shards['unchanged']} unchanged, {shards['removed']} removed"
    )
    status = manifest.column("status").to_numpy(zero_copy_only=False)
    _remove_stale_clips(run.clip_dir, manifest.column("clip_id").filter(pa.array(status == "kept")))
    summary = _summary(sources, manifest, k, run, analysed_sources)
    storage.write_json(storage.join(run.output, "summary.json"), summary)
    with storage.staged_dir(run.output) as local:
        write_report(local, manifest, summary, run.cfg, clip_root=run.output)
    log.info(
        f"manifest: {run.output}/manifest.parquet\n"
        f"clips:    {run.clip_dir} ({summary['counts']['kept']})\n"
        f"summary:  {run.output}/summary.json\n"
        f"report:   {run.output}/report.html"
    )
    return summary


def _clip_spec(cfg: CurateConfig, device: str) -> ClipSpec | None:
    """What the embedding stage loads: CLIP, or None for the appearance descriptor."""
    return ClipSpec(cfg.clip_model, cfg.clip_pretrained, device, cfg.seed) if cfg.uses_clip else None


def _embedder_record(cfg: CurateConfig, device: str) -> dict:
    """The embedder actually used, for the summary and the report."""
    if not cfg.uses_clip:
        return {
            "embedder": "appearance",
            "model": "appearance descriptor (luma structure, HSV histogram, Lab layout)",
            "pretrained": None,
            "device": "cpu",
            "randomly_initialized": False,
            "dedup_threshold": cfg.appearance_dedup_threshold,
            "clusters": "appearance clusters",
            "warning": "no CLIP weights (--clip-pretrained): near-duplicates and clusters use a deterministic "
            "appearance descriptor; clusters group look-alike frames, not semantic content",
        }
    random_model = not cfg.clip_pretrained
    return {
        "embedder": "clip",
        "model": cfg.clip_model,
        "pretrained": cfg.clip_pretrained,
        "device": device,
        "randomly_initialized": random_model,
        "dedup_threshold": cfg.dedup_threshold,
        "clusters": "CLIP clusters",
        "warning": (
            "embeddings come from a RANDOMLY INITIALIZED CLIP model (no --clip-pretrained): clusters "
            "and near-duplicate decisions are not semantically meaningful"
        )
        if random_model
        else "",
    }


def _kmeans_task(cfg: CurateConfig, device: str) -> Kmeans:
    """k-means as one Ray task: on a GPU node when CLIP runs on GPUs (the autoscaler starts one
    if none is up), else on the CPUs of the largest node, with every one of its BLAS threads.
    The embedding matrix goes into the object store once (`put`) and the task gets its
    reference, so the matrix is never pickled into the task's arguments; the task node reads it
    from shared memory or pulls it, and the driver's reference goes when the call returns."""
    gpu = device == "cuda"
    labels = local_kmeans(cfg, "cuda" if gpu else "cpu")

    def run(x: np.ndarray) -> np.ndarray:
        ref = put(x)
        try:
            return call_remote(labels, ref, num_cpus=1 if gpu else min(8, largest_node_cpus()), num_gpus=int(gpu))
        finally:
            del ref

    return run


def _standardize(manifest: pa.Table, kept: np.ndarray, clip_dir: str, cfg: CurateConfig) -> pa.Table:
    """Encode the kept windows (rows `kept`); returns the manifest with their clip paths, and
    with `standardize_failed` errors where encoding failed."""
    if not len(kept):
        return manifest
    step = StandardizeClips(clip_dir, cfg.out_width, cfg.out_height, cfg.out_fps, cfg.window_s, cfg.crf, cfg.preset)
    fields = ["clip_id", "source", "start_s", "width", "height", "fps", "rotation"]
    ds = apply_steps(dataset_from_table(manifest.select(fields).take(pa.array(kept))), [step])
    parts = [
        pa.table({c: pa.array(batch[c], pa.string()) for c in _STD_RESULT})
        for batch in batches(ds, 256)
        if len(batch.get("clip_id", ()))
    ]
    return merge_standardized(manifest, pa.concat_tables(parts) if parts else None)


_STD_RESULT = ("clip_id", "clip_path", "std_status", "std_error")


def merge_standardized(manifest: pa.Table, results: pa.Table | None) -> pa.Table:
    """The manifest with the standardization `results` (clip_id, clip_path, std_status,
    std_error) applied to its kept rows, column by column in Arrow: an encoded clip's path
    (relative to the output, which may be a URI), or an error row where encoding failed or no
    result came back."""
    if results is None:
        results = pa.table({c: pa.array([], pa.string()) for c in _STD_RESULT})
    at = pc.index_in(manifest.column("clip_id"), value_set=results.column("clip_id").combine_chunks())
    std_status, std_path, std_error = (
        results.column(c).combine_chunks().take(at) for c in ("std_status", "clip_path", "std_error")
    )
    kept = pc.equal(manifest.column("status"), "kept")
    encoded = pc.and_(kept, pc.fill_null(pc.equal(std_status, "ok"), False))
    failed = pc.and_(kept, pc.invert(encoded))
    name = pc.replace_substring_regex(pc.fill_null(std_path, ""), "^.*/", "")
    updates = {
        "clip_path": pc.if_else(encoded, pc.binary_join_element_wise("clips", name, "/"), manifest.column("clip_path")),
        "status": pc.if_else(failed, "error", manifest.column("status")),
        "reason": pc.if_else(failed, "standardize_failed", manifest.column("reason")),
        "error": pc.if_else(failed, pc.fill_null(std_error, "standardization did not run"), manifest.column("error")),
    }
    for column, values in updates.items():
        manifest = manifest.set_column(manifest.schema.get_field_index(column), column, pc.cast(values, pa.string()))
    return manifest


def _remove_stale_clips(clip_dir: str, kept_ids: pa.Array | pa.ChunkedArray) -> None:
    """Clips of windows that are no longer kept (a rerun with other inputs or settings) go, in
    one batch, so the folder always matches the manifest; hidden partial files of killed
    writers go too. `kept_ids` are clip (or segment) ids, compared in Arrow."""
    if not storage.is_uri(clip_dir):  # (a bucket never holds partial objects)
        for name in os.listdir(clip_dir):
            if name.startswith("."):
                os.remove(os.path.join(clip_dir, name))
    paths = pa.array(storage.list_files(clip_dir), pa.string())
    stems = pc.replace_substring_regex(pc.replace_substring_regex(paths, "^.*/", ""), "\\.[^.]*$", "")
    ids = pc.cast(kept_ids, pa.string())
    ids = ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids
    stale = paths.filter(pc.invert(pc.is_in(stems, value_set=ids)))
    storage.remove_many(stale.to_pylist())


def _summary(sources, manifest: pa.Table, k, run: _Run, analysed_sources) -> dict:
    windows = manifest.filter(pc.greater_equal(manifest.column("window_index"), 0))
    status = windows.column("status")
    counts = value_counts(status)
    rejected, errors = (windows.filter(pc.equal(status, s)).column("reason") for s in ("rejected", "error"))
    ok = sources.filter(pc.equal(sources.column("status"), "ok"))
    video_s = float(pc.sum(ok.column("duration_s")).as_py() or 0.0)
    frames = int(pc.sum(ok.column("frame_count")).as_py() or 0)
    timings = run.timings
    analyse_s = timings.get("analyse_embed") or 1e-9
    return {
        "sources": source_counts(sources),
        "counts": {
            "windows": windows.num_rows,
            "kept": counts.get("kept", 0),
            "rejected": counts.get("rejected", 0),
            "error": counts.get("error", 0),
            "sampled": int(pc.sum(windows.column("sampled")).as_py() or 0),
        },
        "rejected_by_reason": value_counts(rejected),
        "errors_by_reason": value_counts(errors),
        "checks_failed": value_counts(pc.list_flatten(windows.column("checks_failed").combine_chunks())),
        "k": k,
        "embedding_model": _embedder_record(run.cfg, run.device),
        "ui_screen": run.ui_screen,
        "timings_s": timings,
        "cluster": {"CPU": run.cluster.get("CPU", 0), "GPU": run.cluster.get("GPU", 0)},  # what the timings ran on
        "throughput": {
            "sources_analysed": analysed_sources,
            "source_seconds_per_s": round(video_s / analyse_s, 2) if analysed_sources else None,
            "source_frames_per_s": round(frames / analyse_s, 1) if analysed_sources else None,
            "windows_per_s_select": round(windows.num_rows / (timings.get("select") or 1e-9), 1),
            "clips_per_s_standardize": round(counts.get("kept", 0) / (timings.get("standardize") or 1e-9), 2),
        },
        "config": asdict(run.cfg),
    }
