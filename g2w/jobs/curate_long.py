"""The curation job in long mode: minute-scale, scene-consistent segments instead of 5 s clips.

The first three stages are the window job's own (probe, analyse and embed, select), so every
window gets exactly the decision it gets there; then
4. the window decisions go to `windows.parquet/` (without embeddings) and the driver lets go of
   the window table; windows become segments (`g2w.curate.segments`), one source bucket at a
   time read back from there and from the work shards (`g2w.curate.segment_inputs`): runs of
   usable windows between cuts, gradual transitions and rejected windows, cut into
   `min_s`..`max_s` pieces;
5. kept segments are standardized (tasks) -> `clips/<segment_id>.mp4`;
6. `manifest.parquet/` holds one row per segment (granularity "segment", rejected stretches
   and sources with no segment included, each with its reason), then `summary.json` and
   `report.html`.
A rerun with the same output skips analysed sources and encoded segments, as the window job does.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, replace
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from g2w.curate.bucketed_table import write_sharded
from g2w.curate.config import CurateConfig
from g2w.curate.driver_tables import value_counts
from g2w.curate.segment_clips import StandardizeSegments
from g2w.curate.segment_inputs import bucket_inputs
from g2w.curate.segments import READ_COLUMNS, SEGMENT_SCHEMA, SegmentConfig, plan_segments, source_summary_row
from g2w.curate.ui_screen import resolve_ui_screen
from g2w.io import storage
from g2w.io.storage import expand_inputs
from g2w.jobs.curate import (
    NothingToDo,
    _device,
    _remove_stale_clips,
    _Run,
    analyse_stage,
    probe_stage,
    select_stage,
    windows_expected,
)
from g2w.jobs.long_page import write_segments_report
from g2w.runtime.pipeline import apply_steps, batches, dataset_from_table
from g2w.runtime.ray_init import init_ray

log = logging.getLogger(__name__)


def run_curate_long(
    inputs: list[str], output: str, cfg: CurateConfig = CurateConfig(), seg: SegmentConfig = SegmentConfig()
) -> dict:
    screen, fallback = resolve_ui_screen(cfg.ui_detector)
    run = _Run(
        storage.absolute(output),
        replace(cfg, ui_detector=screen),
        ui_screen={"requested": cfg.ui_detector, "used": screen, "fallback_reason": fallback},
    )
    storage.makedirs(run.shard_dir)
    storage.makedirs(run.clip_dir)
    paths = expand_inputs(inputs)
    if not paths:
        raise NothingToDo(f"no input files found in {inputs}")
    run.cluster = init_ray(output=run.output)
    run.device = _device(cfg, run.cluster)
    run.clock = time.perf_counter()
    sources = probe_stage(run, paths)
    summary = long_stages(run, sources, seg)
    if not summary["sources"].get("ok"):
        raise NothingToDo("no input could be read as a video; see sources.parquet for why")
    return summary


def long_stages(run: _Run, sources: pa.Table, seg: SegmentConfig) -> dict:
    """Stages 2-6 on the probed `sources`; returns the summary."""
    expected = windows_expected(sources, run.cfg.window_s)
    windows, analysed = analyse_stage(run, expected)
    manifest, _ = select_stage(run, windows)
    del windows
    write_sharded(manifest.drop_columns(["embedding"]), _decisions_dir(run))
    del manifest
    segments = segment_stage(run, seg)
    segments = standardize_segments(run, segments)
    segments = pa.concat_tables([segments, _sourceless_rows(sources, segments)])
    return write_long_outputs(run, sources, segments, seg, analysed)


def _decisions_dir(run: _Run) -> str:
    return storage.join(run.output, "windows.parquet")


def segment_stage(run: _Run, seg: SegmentConfig) -> pa.Table:
    """Stage 4: the window decisions turned into segments (columnar, on the driver), read back
    one source bucket at a time with only the columns segmenting needs."""
    log.info("[4/6] segments of %.0f-%.0f s", seg.min_s, seg.max_s)
    embedder = "clip" if run.cfg.uses_clip else "appearance"
    parts = [
        plan_segments(decisions, embeddings, seg, embedder)
        for decisions, embeddings in bucket_inputs(_decisions_dir(run), run.shard_dir, READ_COLUMNS)
    ]
    segments = pa.concat_tables(parts) if parts else SEGMENT_SCHEMA.empty_table()
    run.lap("segment")
    return segments.sort_by([("source_id", "ascending"), ("start_s", "ascending")])


def standardize_segments(run: _Run, segments: pa.Table) -> pa.Table:
    """Stage 5: kept segments encoded (tasks); a failure makes the row an error with its reason."""
    cfg = run.cfg
    status = segments.column("status").to_numpy(zero_copy_only=False)
    kept = np.flatnonzero(status == "kept")
    log.info("[5/6] standardizing %d segments to %dx%d @ %d fps", len(kept), cfg.out_width, cfg.out_height, cfg.out_fps)
    if len(kept):
        step = StandardizeSegments(run.clip_dir, cfg.out_width, cfg.out_height, cfg.out_fps, cfg.crf, cfg.preset)
        fields = ["segment_id", "source", "start_s", "duration_s", "width", "height", "fps", "rotation"]
        ds = apply_steps(dataset_from_table(segments.select(fields).take(pa.array(kept))), [step])
        results = {}
        for batch in batches(ds, 64):
            for sid, path, st, err in zip(
                batch["segment_id"], batch["clip_path"], batch["std_status"], batch["std_error"]
            ):
                results[str(sid)] = (str(path), str(st), str(err))
        columns = {
            c: segments.column(c).to_numpy(zero_copy_only=False).astype(object)
            for c in ("status", "reason", "error", "clip_path")
        }
        for i, sid in zip(kept, segments.column("segment_id").take(pa.array(kept)).to_pylist()):
            path, st, err = results.get(sid, ("", "error", "standardization did not run"))
            if st == "ok":
                columns["clip_path"][i] = "clips/" + path.rsplit("/", 1)[-1]
            else:
                columns["status"][i], columns["reason"][i], columns["error"][i] = "error", "standardize_failed", err
        for name, values in columns.items():
            segments = segments.set_column(segments.schema.get_field_index(name), name, pa.array(values, pa.string()))
    run.lap("standardize")
    return segments


def _sourceless_rows(sources: pa.Table, segments: pa.Table) -> pa.Table:
    """A rejected or error row for every input that has no segment row at all (unreadable, or
    with no usable stretch), so the manifest accounts for every input. Only those sources
    become Python rows."""
    have = pc.cast(segments.column("source_id"), pa.string()).combine_chunks()
    sourceless = sources.filter(pc.invert(pc.is_in(sources.column("source_id"), value_set=have)))
    rows = []
    for s in sourceless.select(["source_id", "path", "status", "reason", "error", "duration_s"]).to_pylist():
        if s["status"] != "ok":
            rows.append(source_summary_row(s["source_id"], s["path"], 0.0, "unreadable", s["error"] or s["reason"]))
        else:
            rows.append(
                source_summary_row(
                    s["source_id"],
                    s["path"],
                    float(s["duration_s"]),
                    "no_usable_footage",
                    f"{s['path']}: no stretch of usable windows (see windows.parquet)",
                )
            )
    return pa.Table.from_pylist(rows, schema=SEGMENT_SCHEMA)


def write_long_outputs(run: _Run, sources, segments: pa.Table, seg: SegmentConfig, analysed: int) -> dict:
    """Stage 6: the segment manifest (the window decisions are in place since stage 4),
    summary.json and report.html."""
    write_sharded(segments, storage.join(run.output, "manifest.parquet"), sort_keys=("source", "start_s"))
    status = segments.column("status").to_numpy(zero_copy_only=False)
    _remove_stale_clips(run.clip_dir, segments.column("segment_id").filter(pa.array(status == "kept")))
    durations = segments.column("duration_s").to_numpy(zero_copy_only=False)
    kept = status == "kept"
    frames = int(pc.sum(sources.filter(pc.equal(sources.column("status"), "ok")).column("frame_count")).as_py() or 0)
    analyse_s = run.timings.get("analyse_embed") or 1e-9
    summary: dict[str, Any] = {
        "mode": "long",
        "sources": {"total": sources.num_rows, **value_counts(sources.column("status"))},
        "segments": {
            "kept": int(kept.sum()),
            "rejected": int((status == "rejected").sum()),
            "error": int((status == "error").sum()),
            "kept_hours": round(float(durations[kept].sum()) / 3600, 4),
            "hud_marked": int(
                pc.sum(
                    pc.and_(
                        pc.equal(segments.column("hud_status"), "none"), pc.equal(segments.column("status"), "kept")
                    )
                ).as_py()
                or 0
            ),
        },
        "rejected_by_reason": value_counts(
            segments.filter(pc.not_equal(segments.column("status"), "kept")).column("reason")
        ),
        "length_s": _length_stats(durations[kept]),
        "timings_s": run.timings,
        "throughput": {
            "sources_analysed": analysed,
            "source_frames_per_s": round(frames / analyse_s, 1) if analysed else None,
        },
        "cluster": {"CPU": run.cluster.get("CPU", 0), "GPU": run.cluster.get("GPU", 0)},
        "config": asdict(run.cfg),
        "segments_config": asdict(seg),
    }
    storage.write_json(storage.join(run.output, "summary.json"), summary)
    with storage.staged_dir(run.output) as local:
        write_segments_report(local, segments, summary, clip_root=run.output)
    log.info("manifest: %s/manifest.parquet (%d segments kept)", run.output, summary["segments"]["kept"])
    return summary


def _length_stats(durations: np.ndarray) -> dict:
    if not len(durations):
        return {"count": 0}
    q = np.percentile(durations, [0, 25, 50, 75, 100])
    return {
        "count": int(len(durations)),
        "mean": round(float(durations.mean()), 2),
        **{k: round(float(v), 2) for k, v in zip(("min", "p25", "median", "p75", "max"), q)},
    }
