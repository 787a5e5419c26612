"""The detect job: the learned segmenter over videos, on Ray Data.

Per video, `OUT/<video_id>/` gets `mask.mkv` (FFV1, 0/255, the video's own size),
`annotation.json` (Appendix G: instances with taxonomy labels tracked across frames by overlap,
a box per frame) and `preview.png` (the middle frame with mask and boxes). Each folder is
written under a hidden name and renamed when complete, so a rerun skips finished videos.
`OUT/cases.jsonl` lists every finished video as a wild case whose annotation is the prediction,
so `g2w evaluate` scores predicted boxes exactly as it scores ground truth. Also written:
`manifest.parquet` (one row per video, errors with a reason), `summary.json`, `report.html`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html
from g2w.io.storage import expand_inputs
from g2w.jobs.options import DetectOptions
from g2w.jobs.summary import DetectSummary
from g2w.runtime.logs import item_level
from g2w.step import Batch, Resources, Step, item_errors, rows_batch
from g2w.video import VideoError

log = logging.getLogger(__name__)

MANIFEST_SCHEMA = pa.schema(
    [
        ("video_id", pa.string()),
        ("video", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("frames", pa.int64()),
        ("instances", pa.int64()),
        ("ui_fraction", pa.float64()),
        ("seconds", pa.float64()),
        ("skipped", pa.bool_()),
        ("out_dir", pa.string()),
    ]
)
OUTPUTS = ("mask.mkv", "annotation.json", "preview.png")


def video_id(path: str) -> str:
    """File stem plus a short hash of the absolute path: stable, and unique across folders."""
    digest = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:8]
    return f"{os.path.splitext(os.path.basename(path))[0]}_{digest}"


def detect_video(segmenter, video: str, out_dir: str, progress=None) -> dict:
    """Segment one video into `out_dir` (written whole or not at all); returns counts.
    `progress(frames_done)`, if given, is called per frame and may raise to stop (nothing is kept)."""
    from g2w.segment.overlay import overlay
    from g2w.segment.predict import Tracker, full_mask, instances
    from g2w.video import MaskWriter, iter_frames, probe

    info = probe(video)
    tmp = os.path.join(os.path.dirname(out_dir), f".{os.path.basename(out_dir)}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    tracker, ui_pixels, frames = Tracker(), 0, 0
    middle = max(0, info.frame_count // 2)
    preview_mask = None
    try:
        with MaskWriter(os.path.join(tmp, "mask.mkv"), info.width, info.height, info.fps or 30.0) as writer:
            for pred in segmenter.frames(video):
                mask = full_mask(pred, info.width, info.height)
                writer.write(mask)
                tracker.add(pred.index, instances(pred, info.width, info.height))
                ui_pixels += int(np.count_nonzero(mask))
                frames += 1
                if pred.index == middle or preview_mask is None:
                    preview_mask = mask
                    middle_index = pred.index
                if progress:
                    progress(frames)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if frames == 0 or preview_mask is None:
        shutil.rmtree(tmp)
        raise ValueError(f"{video}: no frames decoded")
    annotation = tracker.annotation(info.width, info.height, info.fps or 30.0, frames)
    with open(os.path.join(tmp, "annotation.json"), "w") as f:
        json.dump(annotation, f)
    frame = next(f.rgb for f in iter_frames(video) if f.index >= middle_index)
    boxes = [(annotation_label(annotation, o["id"]), o["box"]) for o in annotation["frames"][middle_index]["objects"]]
    save_png(os.path.join(tmp, "preview.png"), overlay(frame, preview_mask, boxes))
    shutil.rmtree(out_dir, ignore_errors=True)
    os.replace(tmp, out_dir)
    return {
        "frames": frames,
        "instances": len(annotation["instances"]),
        "ui_fraction": round(ui_pixels / (frames * info.width * info.height), 5),
    }


@functools.lru_cache(maxsize=2)
def _segmenter(checkpoint: str | None):
    from g2w.segment.predict import Segmenter

    return Segmenter(checkpoint, full_res=True)  # masks refined at the video's own size when the checkpoint can


def detect_file(video: str, out_dir: str, checkpoint: str | None = None, progress=None) -> int:
    """Segment one video into `out_dir` (mask.mkv, annotation.json, preview.png); returns its frame
    count. The removal service's Detector plugs in here (`detector=g2w.jobs.detect:detect_file`);
    the segmenter loads once per process."""
    return detect_video(_segmenter(checkpoint), video, out_dir, progress)["frames"]


def annotation_label(annotation: dict, instance_id: str) -> str:
    return next(i["label"] for i in annotation["instances"] if i["id"] == instance_id)


def detect_one(segmenter, video: str, output: str) -> dict:
    """One manifest row; bad input becomes an error row, never an exception."""
    vid = video_id(video)
    out_dir = os.path.join(output, "videos", vid)
    row = {
        "video_id": vid,
        "video": os.path.abspath(video),
        "status": "ok",
        "reason": "",
        "message": "",
        "frames": 0,
        "instances": 0,
        "ui_fraction": 0.0,
        "seconds": 0.0,
        "skipped": False,
        "out_dir": out_dir,
    }
    if all(os.path.exists(os.path.join(out_dir, name)) for name in OUTPUTS):
        return {**row, "skipped": True}
    with item_errors(row, "detect_failed", {VideoError: "source_"}):
        row.update(detect_video(segmenter, video, out_dir))
    return row


@dataclass
class DetectVideos(Step):
    """Batch of `video` paths -> manifest rows; outputs are written under `output`."""

    output: str
    checkpoint: str | None = None
    threads: int = 1

    def resources(self) -> Resources:
        return Resources(num_cpus=self.threads, batch_size=1)

    def setup(self) -> None:
        from g2w.segment.predict import Segmenter

        self._segmenter = Segmenter(self.checkpoint, threads=self.threads, full_res=True)

    def __call__(self, batch: Batch) -> Batch:
        return rows_batch(
            [detect_one(self._segmenter, str(v), self.output) for v in batch["video"]], MANIFEST_SCHEMA.names
        )


def _write_cases(output: str, rows: list[dict]) -> str:
    path = os.path.join(output, "cases.jsonl")
    with open(path, "w") as f:
        for r in rows:
            if r["status"] == "ok":
                f.write(
                    json.dumps(
                        {
                            "case_id": r["video_id"],
                            "video": r["video"],
                            "split": "wild",
                            "annotation": os.path.join(r["out_dir"], "annotation.json"),
                        }
                    )
                    + "\n"
                )
    return path


def run_detect(options: DetectOptions) -> DetectSummary:
    """Segment every video of `options.videos` (files, folders, globs or lists); returns the summary."""
    from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
    from g2w.runtime.ray_init import init_ray

    output, checkpoint = os.path.abspath(options.output), options.checkpoint
    videos = expand_inputs(options.videos)
    if not videos:
        raise ValueError(f"no videos in {options.videos}")
    os.makedirs(os.path.join(output, "videos"), exist_ok=True)
    from g2w.segment.predict import Segmenter

    Segmenter(checkpoint)  # fail fast, before Ray starts, when the checkpoint does not load
    start = time.perf_counter()
    log.info(f"detect: {len(videos)} videos -> {output}")
    init_ray(output=output)
    manifest = os.path.join(output, "manifest.parquet")
    step = DetectVideos(output, os.path.abspath(checkpoint) if checkpoint else None)
    write_parquet(apply_steps(dataset_from_rows([{"video": v} for v in videos]), [step]), manifest, MANIFEST_SCHEMA)
    rows = sorted(pq.read_table(manifest).to_pylist(), key=lambda r: r["video_id"])
    for n, r in enumerate(rows, 1):
        log.log(
            item_level(r),
            f"  [{n}/{len(rows)}] {r['video_id']}: {r['status']} {r['reason']} {r['frames']} frames, "
            f"{r['instances']} instances",
        )
    made = [r for r in rows if r["status"] == "ok" and not r["skipped"]]
    seconds = sum(r["seconds"] for r in made)
    summary: DetectSummary = {
        "videos": len(rows),
        "ok": sum(r["status"] == "ok" for r in rows),
        "error": sum(r["status"] == "error" for r in rows),
        "skipped": sum(r["skipped"] for r in rows),
        "errors_by_reason": dict(Counter(r["reason"] for r in rows if r["reason"])),
        "frames": sum(r["frames"] for r in made),
        "frames_per_worker_s": round(sum(r["frames"] for r in made) / seconds, 2) if seconds else None,
        "checkpoint": checkpoint or "shipped",
        "seconds": round(time.perf_counter() - start, 2),
        "cases": _write_cases(output, rows),
    }
    with open(os.path.join(output, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    report = _report(output, rows, summary)
    log.info(f"manifest: {manifest}\ncases:    {summary['cases']}\nreport:   {report}")
    return summary


def _read_png(path: str) -> np.ndarray:
    import cv2

    image = cv2.imread(path)
    if image is None:
        raise OSError(f"{path}: not a readable image")
    return image


def _report(output: str, rows: list[dict], summary: DetectSummary) -> str:
    import cv2

    ok = [r for r in rows if r["status"] == "ok"][:12]
    images = [cv2.cvtColor(_read_png(os.path.join(r["out_dir"], "preview.png")), cv2.COLOR_BGR2RGB) for r in ok]
    body = "<p>no finished videos</p>"
    if images:
        save_png(os.path.join(output, "previews.png"), contact_sheet(images, [r["video_id"] for r in ok], 3, 400))
        body = '<img src="previews.png" style="max-width:100%">'
    path = os.path.join(output, "report.html")
    write_html(
        path,
        "g2w detect",
        [
            ("Summary", key_values({k: v for k, v in summary.items() if not isinstance(v, dict)})),
            ("Middle frame: predicted UI (magenta) and tracked boxes", body),
            (
                "Videos (manifest.parquet)",
                table(
                    rows,
                    [
                        "video_id",
                        "status",
                        "reason",
                        "frames",
                        "instances",
                        "ui_fraction",
                        "seconds",
                        "skipped",
                        "message",
                    ],
                ),
            ),
        ],
    )
    return path
