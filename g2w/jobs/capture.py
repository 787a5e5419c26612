"""The capture job: real gameplay clips from open-source games, one Ray task per clip.

Writes into OUT: `clean/*.mp4` (clean clips for `g2w synthesize`), `cases/<clip_id>/` (exact
HUD/clean pairs with mask, annotation and meta.json), `cases.jsonl` (what `g2w evaluate` and
`g2w remove` read), `manifest.parquet` (one row per clip, rejected and failed ones included,
with the reason), `summary.json` (size, time, capture fps and pairing statistics per game) and
`report.html` (HUD run, clean run and mask of a few clips). Finished clips are skipped on rerun.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.capture import GAMES, get_game
from g2w.capture.clip import ClipSpec, capture_clip, plan_clips
from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html
from g2w.jobs.summary import CaptureSummary
from g2w.runtime.logs import item_level
from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.step import Batch, Resources, Step, rows_batch
from g2w.video import FrameReader, VideoError, read_masks

log = logging.getLogger(__name__)

MANIFEST_SCHEMA = pa.schema(
    [
        ("clip_id", pa.string()),
        ("game", pa.string()),
        ("demo", pa.string()),
        ("start_s", pa.int64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("frames", pa.int64()),
        ("seconds", pa.float64()),
        ("capture_fps", pa.float64()),
        ("hud_coverage", pa.float64()),
        ("mad_lossless", pa.float64()),
        ("mad_mp4", pa.float64()),
        ("case_dir", pa.string()),
        ("clean_path", pa.string()),
        ("skipped", pa.bool_()),
        ("paired", pa.bool_()),
    ]
)
REPORT_CLIPS = 4


@dataclass
class CaptureClips(Step):
    """Batch of `spec` (JSON) -> manifest rows; each clip's files are written under out_dir."""

    out_dir: str
    timeout_s: float

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def __call__(self, batch: Batch) -> Batch:
        rows = [capture_clip(ClipSpec.from_json(str(s)), self.out_dir, self.timeout_s) for s in batch["spec"]]
        return rows_batch(rows, MANIFEST_SCHEMA.names)


def _write_cases(manifest: str, out_dir: str) -> int:
    """cases.jsonl for every ok pair, streamed from the manifest (paths relative to OUT)."""
    n = 0
    with open(os.path.join(out_dir, "cases.jsonl.partial"), "w") as f:
        for batch in pq.ParquetFile(manifest).iter_batches(columns=["clip_id", "status", "frames", "paired"]):
            for clip_id, status, frames, paired in zip(*(batch.column(i).to_pylist() for i in range(4))):
                if status != "ok" or not paired:
                    continue
                with open(os.path.join(out_dir, "cases", clip_id, "meta.json")) as m:
                    meta = json.load(m)
                case = f"cases/{clip_id}"
                f.write(
                    json.dumps(
                        {
                            "case_id": clip_id,
                            "split": "synthetic",
                            "video": f"{case}/hud.mp4",
                            "reference": f"{case}/clean.mp4",
                            "mask": f"{case}/mask.mkv",
                            "annotation": f"{case}/annotation.json",
                            "width": meta["width"],
                            "height": meta["height"],
                            "fps": meta["fps"],
                            "frame_count": frames,
                        }
                    )
                    + "\n"
                )
                n += 1
    os.replace(os.path.join(out_dir, "cases.jsonl.partial"), os.path.join(out_dir, "cases.jsonl"))
    return n


def _per_game(rows: list[dict]) -> dict:
    out = {}
    for game in sorted({r["game"] for r in rows}):
        mine = [r for r in rows if r["game"] == game]
        ok = [r for r in mine if r["status"] == "ok"]
        pairs = [r for r in ok if r["paired"]]
        fresh = [r for r in mine if not r["skipped"] and r["capture_fps"] > 0]
        out[game] = {
            "clips": len(mine),
            "ok": len(ok),
            "pairs": len(pairs),
            "rejected": dict(Counter(r["reason"] for r in mine if r["status"] == "rejected")),
            "errors": dict(Counter(r["reason"] for r in mine if r["status"] == "error")),
            "capture_fps_mean": round(float(np.mean([r["capture_fps"] for r in fresh])), 2) if fresh else None,
            "hud_coverage_mean": round(float(np.mean([r["hud_coverage"] for r in pairs])), 5) if pairs else None,
            "mad_lossless_max": max((r["mad_lossless"] for r in pairs), default=None),
            "mad_mp4_mean": round(float(np.mean([r["mad_mp4"] for r in pairs])), 4) if pairs else None,
        }
    return out


def _dir_bytes(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def _report(out_dir: str, rows: list[dict], summary: CaptureSummary) -> str:
    images, labels = [], []
    for row in [r for r in rows if r["status"] == "ok" and r["paired"]][:REPORT_CLIPS]:
        try:
            hud, clean = FrameReader(os.path.join(row["case_dir"], "hud.mp4")), FrameReader(row["clean_path"])
            mid = len(hud) // 2
            mask = read_masks(os.path.join(row["case_dir"], "mask.mkv"))[mid]
            images += [hud.read([mid])[0], clean.read([mid])[0], np.repeat(mask[..., None], 3, axis=2)]
        except (VideoError, IndexError):
            continue
        labels += [f"{row['clip_id']} HUD", "clean", "mask"]
    body = ""
    if images:
        save_png(os.path.join(out_dir, "contact_sheet.png"), contact_sheet(images, labels, 3, thumb_width=360))
        body = '<img src="contact_sheet.png" style="max-width:100%">'
    path = os.path.join(out_dir, "report.html")
    write_html(
        path,
        "g2w capture",
        [
            ("Summary", key_values({k: v for k, v in summary.items() if not isinstance(v, dict)})),
            (
                "Per game",
                table(
                    [
                        {"game": g, **{k: json.dumps(v) if isinstance(v, dict) else v for k, v in s.items()}}
                        for g, s in summary["games"].items()
                    ],
                    [
                        "game",
                        "clips",
                        "ok",
                        "pairs",
                        "rejected",
                        "errors",
                        "capture_fps_mean",
                        "hud_coverage_mean",
                        "mad_lossless_max",
                        "mad_mp4_mean",
                    ],
                ),
            ),
            ("Middle frame: HUD run, clean run, mask", body or "<p>no finished clips</p>"),
            (
                "Clips (manifest.parquet)",
                table(
                    rows,
                    [
                        "clip_id",
                        "status",
                        "reason",
                        "frames",
                        "capture_fps",
                        "hud_coverage",
                        "mad_lossless",
                        "mad_mp4",
                        "seconds",
                        "skipped",
                    ],
                ),
            ),
        ],
    )
    return path


def run_capture(
    games: list[str],
    output: str,
    clips: int,
    seed: int,
    duration_s: float = 5.0,
    width: int = 1280,
    height: int = 720,
    fps: int = 30,
    timeout_s: float = 300.0,
) -> CaptureSummary:
    """Capture `clips` clips of each game in `games` (names from `g2w.capture.GAMES`); returns the summary."""
    start = time.perf_counter()
    output = os.path.abspath(output)
    frames = round(duration_s * fps)
    specs = [
        s
        for g in games
        for s in plan_clips(get_game(g), clips, seed, duration_s, frames=frames, width=width, height=height, fps=fps)
    ]
    os.makedirs(output, exist_ok=True)
    log.info(f"capture: {len(specs)} clips of {', '.join(games)} -> {output}")
    init_ray(output=output)
    ds = apply_steps(dataset_from_rows([{"spec": s.to_json()} for s in specs]), [CaptureClips(output, timeout_s)])
    manifest = os.path.join(output, "manifest.parquet")
    write_parquet(ds, manifest, MANIFEST_SCHEMA)
    rows = sorted(pq.read_table(manifest).to_pylist(), key=lambda r: r["clip_id"])
    for n, row in enumerate(rows, 1):
        tag = " (existing)" if row["skipped"] else f" {row['capture_fps']} fps, {row['seconds']:.0f} s"
        log.log(item_level(row), f"  [{n}/{len(rows)}] {row['clip_id']}: {row['status']} {row['reason']}{tag}")
    statuses = Counter(r["status"] for r in rows)
    summary: CaptureSummary = {
        "games": _per_game(rows),
        "clips": len(rows),
        "ok": statuses.get("ok", 0),
        "rejected": statuses.get("rejected", 0),
        "error": statuses.get("error", 0),
        "cases": _write_cases(manifest, output),
        "clean_clips": len(os.listdir(os.path.join(output, "clean")))
        if os.path.isdir(os.path.join(output, "clean"))
        else 0,
        "bytes": _dir_bytes(output),
        "seconds": round(time.perf_counter() - start, 2),
        "duration_s": duration_s,
        "size": f"{width}x{height}",
        "fps": fps,
        "seed": seed,
    }
    with open(os.path.join(output, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    report = _report(output, rows, summary)
    log.info(f"corpus:  {output} ({summary['bytes'] / 1e6:.1f} MB, {summary['seconds']:.0f} s)\nreport:  {report}")
    return summary


def all_games() -> list[str]:
    return sorted(GAMES)
