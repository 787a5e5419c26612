"""The caption job: four-level captions of a long-mode curation run's segments, or of videos.

Per segment `captions/<segment_id>.json` (`g2w.caption.captioner`), then `caption.parquet` (one
row per segment: status ok / invalid / error, reason, message, path) and, for a curation run,
the rebuilt dataset manifest. Requests run in a small actor pool (`workers` concurrent calls);
a rerun skips segments whose record exists with the same settings and prompt.
"""

from __future__ import annotations

import logging
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.caption.captioner import CaptionSegments
from g2w.io import storage
from g2w.jobs.summary import CaptionSummary
from g2w.jobs.trajectory import is_long_run, work_rows
from g2w.runtime.pipeline import apply_steps, batches, dataset_from_rows
from g2w.runtime.ray_init import init_ray
from g2w.video.errors import VideoError
from g2w.video.probe import probe

log = logging.getLogger(__name__)

RESULT_SCHEMA = pa.schema(
    [
        ("segment_id", pa.string()),
        ("video", pa.string()),
        ("caption_path", pa.string()),
        ("caption_status", pa.string()),
        ("caption_reason", pa.string()),
        ("caption_message", pa.string()),
    ]
)


def _duration(video: str) -> float:
    try:
        return float(probe(video).duration_s)
    except VideoError:
        return 0.0


def run_caption(inputs: list[str], output: str | None, step: CaptionSegments) -> CaptionSummary:
    if output is None:
        if len(inputs) != 1 or not is_long_run(inputs[0]):
            raise ValueError("--output is needed unless the input is one long-mode curation run")
        output = inputs[0]
    output = storage.absolute(output)
    rows = work_rows(inputs, output)
    if not rows:
        raise ValueError(f"no segments or videos found in {inputs}")
    storage.makedirs(storage.join(output, "captions"))
    work = [
        {
            "segment_id": r["segment_id"],
            "video": r["video"],
            "duration_s": _duration(r["video"]),
            "caption_path": storage.join(output, "captions", f"{r['segment_id']}.json"),
        }
        for r in rows
    ]
    init_ray(output=output)
    videos = {r["segment_id"]: r["video"] for r in work}
    results = []
    for batch in batches(apply_steps(dataset_from_rows(work), [step]), 64):
        for i in range(len(batch["segment_id"])):
            sid = str(batch["segment_id"][i])
            results.append(
                {
                    "segment_id": sid,
                    "video": videos[sid],
                    **{
                        k: str(batch[k][i])
                        for k in ("caption_path", "caption_status", "caption_reason", "caption_message")
                    },
                }
            )
    table = pa.Table.from_pylist(sorted(results, key=lambda r: r["segment_id"]), schema=RESULT_SCHEMA)
    with storage.staged_file(storage.join(output, "caption.parquet")) as local:
        pq.write_table(table, local)
    statuses = Counter(r["caption_status"] for r in results)
    summary: CaptionSummary = {
        "segments": len(results),
        "ok": statuses["ok"],
        "invalid": statuses["invalid"],
        "error": statuses["error"],
        "reasons": dict(Counter(r["caption_reason"] for r in results if r["caption_reason"])),
    }
    storage.write_json(storage.join(output, "caption_summary.json"), summary)
    if is_long_run(output):
        from g2w.jobs.long_dataset import build_dataset

        build_dataset(output)
    log.info("captions: %s", summary)
    return summary
