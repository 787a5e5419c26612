"""The minute-scale dataset manifest: one row per segment of a long-mode curation run, joining
what each stage wrote.

`dataset.parquet` holds every segment row of `manifest.parquet` (clip path, HUD status
clean / none / removed, window decisions and boundaries) with, where they exist, the columns of
`trajectory.parquet` (`trajectory_path` relative to the run, `trajectory_status`
accepted / rejected / error, `trajectory_reason`, jumps, `in_game_jumps`, jitter, drift) and of `caption.parquet`
(`caption_path`, `caption_status` ok / invalid / error, `caption_reason`). `dataset.html` shows a
contact strip and the trajectory plot of each kept segment. Rebuilt by `g2w trajectory` and
`g2w caption` after they run, so it always reflects what is on disk.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io import storage
from g2w.jobs.long_page import write_segments_report

TRAJECTORY_COLUMNS = (
    "trajectory_path",
    "trajectory_status",
    "trajectory_reason",
    "jumps",
    "in_game_jumps",
    "jitter_deg_s",
    "drift_deg_s",
)
CAPTION_COLUMNS = ("caption_path", "caption_status", "caption_reason")


def _relative(run: str, path: str | None) -> str | None:
    prefix = run.rstrip("/") + "/"
    return path[len(prefix) :] if path and path.startswith(prefix) else path


def _stage(run: str, name: str, columns: tuple[str, ...]) -> dict[str, dict]:
    path = storage.join(run, name)
    if not storage.exists(path):
        return {}
    with storage.open_binary(path) as f:
        rows = pq.read_table(f).to_pylist()
    return {r["segment_id"]: {c: r.get(c) for c in columns} for r in rows}


def build_dataset(run: str) -> pa.Table:
    run = storage.absolute(run)
    segments = pq.read_table(storage.join(run, "manifest.parquet")).to_pylist()
    trajectories = _stage(run, "trajectory.parquet", TRAJECTORY_COLUMNS)
    captions = _stage(run, "caption.parquet", CAPTION_COLUMNS)
    rows = []
    for s in segments:
        t = trajectories.get(s["segment_id"], {})
        c = captions.get(s["segment_id"], {})
        rows.append(
            {
                **s,
                **{k: t.get(k) for k in TRAJECTORY_COLUMNS},
                **{k: c.get(k) for k in CAPTION_COLUMNS},
                "trajectory_path": _relative(run, t.get("trajectory_path")),
                "caption_path": _relative(run, c.get("caption_path")),
            }
        )
    table = pa.Table.from_pylist(rows)
    with storage.staged_file(storage.join(run, "dataset.parquet")) as local:
        pq.write_table(table, local)
    kept = [r for r in rows if r["status"] == "kept"]
    summary = {
        "segments": len(rows),
        "kept": len(kept),
        "trajectory_accepted": sum(r["trajectory_status"] == "accepted" for r in kept),
        "captioned": sum(r["caption_status"] == "ok" for r in kept),
    }
    with storage.staged_dir(run) as local:
        write_segments_report(local, table, summary, clip_root=run, name="dataset.html")
    return table
