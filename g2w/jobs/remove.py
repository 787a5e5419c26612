"""The remove job: run one removal method over every case, on Ray Data.

Writes into OUT: `<case_id>.mp4` per case (what `g2w evaluate --edited OUT` reads) and
`made/<case_id>.json` (what it was made from, `g2w.remove.made_from`),
`method.json` (the method's name and traits for the results table), `manifest.parquet` (one
row per case, errors included), `summary.json` and `report.html` (source and edit side by side
for a few cases). Existing outputs are complete by construction (atomic writes), so a rerun
skips them. OUT may be a bucket prefix (`s3://bucket/edits`): each worker encodes its edit to a
local temporary file and uploads it, and the driver writes the tables and the report there.
CASES may be in a bucket too: each worker fetches its case's files to a local temporary folder.
Learned removers plug in as further methods of `g2w.remove`.
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.cases.case import Case, load_cases, local_case
from g2w.io import storage
from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html
from g2w.jobs.summary import RemoveSummary
from g2w.remove import PROGRESS, MethodInputError, get_method, run_method
from g2w.remove.made_from import made_record, source_digest, write_record
from g2w.runtime.capacity import gpus_possible
from g2w.runtime.logs import item_level
from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.step import Batch, Resources, Step, item_errors, rows_batch
from g2w.video import FrameReader, VideoError

log = logging.getLogger(__name__)

MANIFEST_SCHEMA = pa.schema(
    [
        ("case_id", pa.string()),
        ("split", pa.string()),
        ("method", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("path", pa.string()),
        ("frames", pa.int64()),
        ("seconds", pa.float64()),
        ("skipped", pa.bool_()),
    ]
)
REPORT_CASES = 6


def remove_one(method: str, case: Case, out_dir: str, options: dict | None = None, progress=None) -> dict:
    """Run `method` (with its `options`) on one case; never raises for bad input (an error row instead).
    `progress(frames_done)` reaches methods that take it (see g2w.remove); what it raises passes through."""
    path = case.edited_path(out_dir)
    row = {
        "case_id": case.case_id,
        "split": case.split,
        "method": method,
        "status": "ok",
        "reason": "",
        "message": "",
        "path": path,
        "frames": 0,
        "seconds": 0.0,
        "skipped": False,
    }
    if storage.exists(path):  # published only once complete
        return {**row, "skipped": True}
    with item_errors(row, "remove_failed", {VideoError: "source_", MethodInputError: ""}):
        if PROGRESS in (options or {}):
            raise ValueError(f"{PROGRESS!r} is the progress hook, not an option")
        with local_case(case) as (here, _), storage.staged_file(path) as local:  # inputs fetched by this worker
            row["frames"] = run_method(method, here, local, progress, **(options or {}))
            record = made_record(method, options or {}, source_digest(here.source))
            write_record(out_dir, case.case_id, record)  # before the edit is published (`made_from`)
    return row


@dataclass
class RemoveCases(Step):
    """Batch of `case` (JSON) -> manifest rows; the edited video is written beside."""

    method: str
    out_dir: str
    options: dict = field(default_factory=dict)
    use_gpu: bool = False  # a GPU method on a cluster with GPUs: one GPU per worker

    def resources(self) -> Resources:
        # A GPU method on a cluster with GPUs gets one GPU per worker, so the runtime runs it on an
        # actor pool (one actor per GPU) and a learned model loads once per worker. The memory is
        # the method's own (`g2w.remove.Method.memory_gib`).
        return Resources(
            num_cpus=1,
            num_gpus=1 if self.use_gpu else 0,
            batch_size=1,
            memory_bytes=int(get_method(self.method).memory_gib * (1 << 30)),
        )

    def __call__(self, batch: Batch) -> Batch:
        rows = [remove_one(self.method, Case.from_json(str(c)), self.out_dir, self.options) for c in batch["case"]]
        return rows_batch(rows, MANIFEST_SCHEMA.names)


def _report(out_dir: str, rows: list[dict], cases: dict[str, Case], summary: RemoveSummary) -> None:
    """report.html and contact_sheet.png into the local folder `out_dir`."""
    images, labels = [], []
    for row in [r for r in rows if r["status"] == "ok"][:REPORT_CASES]:
        case = cases[row["case_id"]]
        try:
            with storage.local_copy(row["path"]) as edited, local_case(case) as (here, _):
                src, edt = FrameReader(here.source), FrameReader(edited)
                mid = len(src) // 2
                images += [src.read([mid])[0], edt.read([min(mid, len(edt) - 1)])[0]]
        except (VideoError, IndexError, OSError):
            continue
        labels += [f"{row['case_id']} source", f"{row['case_id']} {row['method']}"]
    body = ""
    if images:
        save_png(os.path.join(out_dir, "contact_sheet.png"), contact_sheet(images, labels, 2, thumb_width=400))
        body = '<img src="contact_sheet.png" style="max-width:100%">'
    write_html(
        os.path.join(out_dir, "report.html"),
        f"g2w remove: {summary['method']}",
        [
            ("Summary", key_values({k: v for k, v in summary.items() if not isinstance(v, dict)})),
            ("Middle frame of the source and of the edit", body or "<p>no finished edits</p>"),
            (
                "Cases (manifest.parquet)",
                table(rows, ["case_id", "split", "status", "reason", "frames", "seconds", "skipped", "message"]),
            ),
        ],
    )


def run_remove(method: str, cases: str, output: str, options: dict | None = None) -> RemoveSummary:
    """Apply a removal method (with its `options`) to every case; returns the summary."""
    traits = get_method(method).traits(options or {})  # checks a reference option before any work
    start = time.perf_counter()
    output = storage.absolute(output)
    case_list = load_cases(cases)
    storage.makedirs(output)
    storage.write_json(storage.join(output, "method.json"), {"method": method, **traits, "options": options or {}})
    log.info(f"remove: {method} on {len(case_list)} cases -> {output}")
    use_gpu = get_method(method).gpu and gpus_possible(init_ray(output=output)) > 0
    step = RemoveCases(method, output, options or {}, use_gpu)
    ds = apply_steps(dataset_from_rows([{"case": c.to_json()} for c in case_list]), [step])
    manifest = storage.join(output, "manifest.parquet")
    write_parquet(ds, manifest, MANIFEST_SCHEMA)
    rows = sorted(pq.read_table(manifest).to_pylist(), key=lambda r: r["case_id"])
    for n, row in enumerate(rows, 1):
        tag = " (existing)" if row["skipped"] else f" {row['frames']} frames, {row['seconds']:.1f} s"
        log.log(item_level(row), f"  [{n}/{len(rows)}] {row['case_id']}: {row['status']} {row['reason']}{tag}")
    statuses = Counter(r["status"] for r in rows)
    made = [r for r in rows if r["status"] == "ok" and not r["skipped"]]
    seconds = sum(r["seconds"] for r in made)
    summary: RemoveSummary = {
        "method": method,
        "cases": len(rows),
        "ok": statuses.get("ok", 0),
        "error": statuses.get("error", 0),
        "skipped": sum(r["skipped"] for r in rows),
        "errors_by_reason": dict(Counter(r["reason"] for r in rows if r["reason"])),
        "frames_written": sum(r["frames"] for r in made),
        "frames_per_worker_s": round(sum(r["frames"] for r in made) / seconds, 2) if seconds else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    storage.write_json(storage.join(output, "summary.json"), summary)
    with storage.staged_dir(output) as local:
        _report(local, rows, {c.case_id: c for c in case_list}, summary)
    report = storage.join(output, "report.html")
    log.info(f"edits:   {output}\nreport:  {report}")
    return summary
