"""The trajectory stage as a pipeline step: one segment per row, estimated, validated, written.

A row names a video, the stretch to estimate (`start_s`, `end_s`; a standardized segment clip is
the whole file), where the file goes, and whether the footage carries a HUD (`hud_status`
"none": the detector's mask is computed and kept out of tracking). An existing file is complete
(files are published whole), so a rerun reads its record instead of estimating again. Bad input
never raises: an unreadable video is an `error` row with its reason; footage with nothing to
track is a written, `rejected` trajectory whose reason says so.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numpy as np

from g2w.step import Batch, Resources, Step
from g2w.trajectory.estimate import TrackerConfig, estimate
from g2w.trajectory.table import read_record, write_trajectory
from g2w.trajectory.validate import ValidationConfig, validate
from g2w.video.errors import VideoError

OUT_FIELDS = ("segment_id", "trajectory_path", "trajectory_status", "trajectory_reason", "trajectory_record")


@dataclass
class EstimateTrajectories(Step):
    hfov_deg: float | None = None  # None: estimated per segment
    hud_mask: str = "auto"  # auto (detector where hud_status says a HUD is there) | detector | none
    checkpoint: str | None = None  # segmenter folder; default: the shipped weights
    tracker: TrackerConfig = field(default_factory=TrackerConfig)
    validation: ValidationConfig = field(default_factory=ValidationConfig)

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def setup(self) -> None:
        self._segmenter = None

    def _mask(self, row: dict):
        wants = self.hud_mask == "detector" or (self.hud_mask == "auto" and row.get("hud_status") == "none")
        if not wants:
            return None
        from g2w.segment.predict import Segmenter
        from g2w.trajectory.hud_mask import detector_mask
        from g2w.video.probe import probe

        if getattr(self, "_segmenter", None) is None:
            self._segmenter = Segmenter(self.checkpoint, threads=1)
        info = probe(row["video"])
        return detector_mask(self._segmenter, row["video"], info.width, info.height)

    def run_one(self, row: dict) -> dict:
        out = {"segment_id": row["segment_id"], "trajectory_path": row["trajectory_path"]}
        done = read_record(row["trajectory_path"])
        if done is not None:
            v = done["validation"]
            return {
                **out,
                "trajectory_status": v["status"],
                "trajectory_reason": v["reason"],
                "trajectory_record": done,
            }
        clock = time.perf_counter()
        try:
            mask = self._mask(row)
            end = float(row["end_s"]) if row.get("end_s") is not None and float(row["end_s"]) > 0 else None
            raw = estimate(row["video"], float(row.get("start_s") or 0.0), end, self.hfov_deg, mask, cfg=self.tracker)
        except (VideoError, ValueError, OSError) as exc:
            return {
                **out,
                "trajectory_path": "",
                "trajectory_status": "error",
                "trajectory_reason": "unreadable",
                "trajectory_record": {"message": f"{type(exc).__name__}: {exc}"},
            }
        seconds = time.perf_counter() - clock
        check = validate(raw, self.validation)
        record = {
            "intrinsics": {
                "hfov_deg": raw.info["hfov_deg"],
                "fx": raw.fx,
                "cx": raw.work_size[0] / 2,
                "cy": raw.work_size[1] / 2,
                "work_width": raw.work_size[0],
                "work_height": raw.work_size[1],
            },
            "estimate": raw.info,
            "validation": check,
            "seconds": round(seconds, 3),
            "frames_per_s": round(len(raw.times) / max(seconds, 1e-9), 2),
            "hud_masked": mask is not None,
        }
        write_trajectory(row["trajectory_path"], raw, record)
        return {
            **out,
            "trajectory_status": check["status"],
            "trajectory_reason": check["reason"],
            "trajectory_record": record,
        }

    def __call__(self, batch: Batch) -> Batch:
        rows = [{k: batch[k][i] for k in batch} for i in range(len(batch["segment_id"]))]
        results = [self.run_one(r) for r in rows]
        out = {k: np.array([r[k] for r in results], dtype=object) for k in OUT_FIELDS[:-1]}
        out["trajectory_record"] = np.array([json.dumps(r["trajectory_record"]) for r in results], dtype=object)
        return out
