"""The sources table: one row per input file with its probe result, errors included.

`source_id` derives from the file's content (size plus its first and last MiB), so it survives
renames and moves and is cheap even for hour-long videos; downstream ids (windows, clips) build
on it, which is what makes reruns find their finished work.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pyarrow as pa

from g2w.io import storage
from g2w.step import Batch, Resources, Step, rows_batch
from g2w.video.errors import VideoError
from g2w.video.probe import probe

_HASH_SPAN = 1 << 20

SOURCES_SCHEMA = pa.schema(
    [
        ("source_id", pa.string()),
        ("path", pa.string()),
        ("size_bytes", pa.int64()),
        ("status", pa.string()),  # ok | error
        ("reason", pa.string()),  # machine-readable error class, "" when ok
        ("error", pa.string()),  # human-readable message, "" when ok
        ("has_video", pa.bool_()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("fps", pa.float64()),
        ("frame_count", pa.int64()),
        ("duration_s", pa.float64()),
        ("codec", pa.string()),
        ("rotation", pa.int32()),
    ]
)


def source_id(path: str) -> str:
    """A stable 16-hex-digit id from the file's size and its first and last MiB."""
    size = storage.size(path)
    h = hashlib.sha1(str(size).encode())
    with storage.open_binary(path) as f:
        h.update(f.read(_HASH_SPAN))
        if size > 2 * _HASH_SPAN:
            f.seek(size - _HASH_SPAN)
        h.update(f.read(_HASH_SPAN))
    return h.hexdigest()[:16]


def probe_row(path: str, verify: bool = True) -> dict:
    """The sources-table row for one path. Never raises for bad input: it reports it."""
    row = {
        "source_id": "",
        "path": path,
        "size_bytes": 0,
        "status": "ok",
        "reason": "",
        "error": "",
        "has_video": False,
        "width": 0,
        "height": 0,
        "fps": 0.0,
        "frame_count": 0,
        "duration_s": 0.0,
        "codec": "",
        "rotation": 0,
    }
    if storage.exists(path):
        row["size_bytes"] = storage.size(path)
        row["source_id"] = source_id(path)
    try:
        info = probe(path, verify=verify)
    except VideoError as exc:
        return {**row, "status": "error", "reason": exc.reason, "error": str(exc)}
    except OSError as exc:
        return {**row, "status": "error", "reason": "unreadable", "error": f"{path}: {exc.strerror or exc}"}
    row.update({k: v for k, v in info.to_dict().items() if k in row})
    if not info.has_video:
        row.update(status="error", reason="no_video_stream", error=f"{path}: media file without a video stream")
    return row


@dataclass
class ProbeSources(Step):
    """Batch of `path` -> batch of sources-table rows."""

    verify: bool = True

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=4)

    def __call__(self, batch: Batch) -> Batch:
        rows = [probe_row(str(p), self.verify) for p in batch["path"]]
        return rows_batch(rows, SOURCES_SCHEMA.names)
