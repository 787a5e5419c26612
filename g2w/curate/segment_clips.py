"""Encode kept segments to standardized clips: the window standardizer at the segment's length.

A segment is whatever length its run allows (`SegmentConfig.min_s`..`max_s`), so each row
carries its own duration; geometry, colour handling and timing are exactly those of the window
clips (`g2w.curate.standardize`), so a minute-scale clip and a 5 s clip of one source match
frame for frame where they overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from g2w.curate.standardize import StandardizeClips
from g2w.io import storage
from g2w.step import Batch, Resources, Step
from g2w.video.errors import VideoError

FIELDS = ("segment_id", "source", "start_s", "duration_s", "width", "height", "fps", "rotation")


@dataclass
class StandardizeSegments(Step):
    """Batch of kept segment rows -> `segment_id`, `clip_path`, `std_status`, `std_error`."""

    out_dir: str
    width: int = 1280
    height: int = 720
    fps: int = 30
    crf: int = 18
    preset: str = "fast"

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def __call__(self, batch: Batch) -> Batch:
        out = {"segment_id": [], "clip_path": [], "std_status": [], "std_error": []}
        for i in range(len(batch["segment_id"])):
            row = {k: batch[k][i] for k in FIELDS}
            path = storage.join(self.out_dir, f"{row['segment_id']}.mp4")
            status, error = "ok", ""
            if not storage.exists(path):  # published only when complete: an existing clip is whole
                encoder = StandardizeClips(
                    self.out_dir, self.width, self.height, self.fps, float(row["duration_s"]), self.crf, self.preset
                )
                try:
                    with storage.staged_file(path) as local:
                        encoder.write_clip({**row, "clip_id": row["segment_id"]}, local)
                except (VideoError, ValueError) as exc:
                    status, error = "error", str(exc)
            out["segment_id"].append(str(row["segment_id"]))
            out["clip_path"].append(path if status == "ok" else "")
            out["std_status"].append(status)
            out["std_error"].append(error)
        return {k: np.array(v) for k, v in out.items()}
