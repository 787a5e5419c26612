"""The trajectory job: camera trajectories of a long-mode curation run's segments, or of videos.

Input: a `g2w curate --mode long` output folder (its kept segments, their clips and HUD status)
or video files (each one segment of its whole length). Per segment, `trajectories/<id>.parquet`
(format in `g2w.trajectory.table`); then `trajectory.parquet` (one row per segment: status
accepted / rejected / error, reason, scores, path) and `summary.json`. For a curation run the
output defaults to the run folder itself, and the dataset manifest is rebuilt
(`g2w.jobs.long_dataset`). Rerunning skips segments whose file exists.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io import storage
from g2w.io.storage import expand_inputs
from g2w.runtime.pipeline import apply_steps, batches, dataset_from_rows
from g2w.runtime.ray_init import init_ray
from g2w.trajectory.step import EstimateTrajectories

log = logging.getLogger(__name__)

RESULT_SCHEMA = pa.schema(
    [
        ("segment_id", pa.string()),
        ("video", pa.string()),
        ("trajectory_path", pa.string()),
        ("trajectory_status", pa.string()),
        ("trajectory_reason", pa.string()),
        ("jumps", pa.int32()),
        ("in_game_jumps", pa.list_(pa.float64())),  # the breaks' times (s from the segment's start)
        ("jitter_deg_s", pa.float64()),
        ("drift_deg_s", pa.float64()),
        ("valid_fraction", pa.float64()),
        ("hfov_deg", pa.float64()),
        ("frames_per_s", pa.float64()),
        ("record", pa.string()),
    ]
)


def is_long_run(path: str) -> bool:
    return storage.is_dir(storage.join(path, "manifest.parquet")) and storage.is_dir(
        storage.join(path, "windows.parquet")
    )


def video_segment_id(path: str) -> str:
    digest = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    return f"{os.path.splitext(os.path.basename(path))[0]}_{digest}"


def work_rows(inputs: list[str], output: str) -> list[dict]:
    rows = []
    for spec in inputs:
        if is_long_run(spec):
            manifest = pq.read_table(storage.join(spec, "manifest.parquet")).to_pylist()
            for r in manifest:
                if r["status"] == "kept" and r["clip_path"]:
                    rows.append(
                        {
                            "segment_id": r["segment_id"],
                            "video": storage.join(spec, r["clip_path"]),
                            "start_s": 0.0,
                            "end_s": 0.0,
                            "hud_status": r["hud_status"],
                        }
                    )
            continue
        for path in expand_inputs([spec]):
            rows.append(
                {
                    "segment_id": video_segment_id(path),
                    "video": path,
                    "start_s": 0.0,
                    "end_s": 0.0,
                    "hud_status": "unknown",
                }
            )
    for r in rows:
        r["trajectory_path"] = storage.join(output, "trajectories", f"{r['segment_id']}.parquet")
    return rows


def run_trajectory(inputs: list[str], output: str | None, step: EstimateTrajectories) -> dict:
    if output is None:
        runs = [i for i in inputs if is_long_run(i)]
        if len(runs) != 1 or len(inputs) != 1:
            raise ValueError("--output is needed unless the input is one long-mode curation run")
        output = runs[0]
    output = storage.absolute(output)
    rows = work_rows(inputs, output)
    if not rows:
        raise ValueError(f"no segments or videos found in {inputs}")
    storage.makedirs(storage.join(output, "trajectories"))
    init_ray(output=output)
    videos = {r["segment_id"]: r["video"] for r in rows}
    results = []
    for batch in batches(apply_steps(dataset_from_rows(rows), [step]), 64):
        for i in range(len(batch["segment_id"])):
            record = json.loads(batch["trajectory_record"][i])
            v = record.get("validation", {})
            results.append(
                {
                    "segment_id": str(batch["segment_id"][i]),
                    "video": videos[str(batch["segment_id"][i])],
                    "trajectory_path": str(batch["trajectory_path"][i]),
                    "trajectory_status": str(batch["trajectory_status"][i]),
                    "trajectory_reason": str(batch["trajectory_reason"][i]),
                    "jumps": v.get("jumps"),
                    "in_game_jumps": v.get("break_times_s"),
                    "jitter_deg_s": v.get("jitter_deg_s"),
                    "drift_deg_s": v.get("drift_deg_s"),
                    "valid_fraction": v.get("valid_fraction"),
                    "hfov_deg": record.get("intrinsics", {}).get("hfov_deg"),
                    "frames_per_s": record.get("frames_per_s"),
                    "record": json.dumps(record),
                }
            )
    table = pa.Table.from_pylist(sorted(results, key=lambda r: r["segment_id"]), schema=RESULT_SCHEMA)
    with storage.staged_file(storage.join(output, "trajectory.parquet")) as local:
        pq.write_table(table, local)
    summary = {
        "segments": len(results),
        **Counter(r["trajectory_status"] for r in results),
        "reasons": dict(Counter(r["trajectory_reason"] for r in results if r["trajectory_reason"])),
    }
    storage.write_json(storage.join(output, "trajectory_summary.json"), summary)
    if is_long_run(output):
        from g2w.jobs.long_dataset import build_dataset

        build_dataset(output)
    log.info("trajectories: %s", summary)
    return summary
