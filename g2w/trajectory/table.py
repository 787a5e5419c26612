"""The per-segment trajectory file: one Parquet row per frame, the estimate's context in the
file's metadata.

Columns (all per frame, in order of time):
- `time_s` float64: seconds from the segment's first frame;
- `qx, qy, qz, qw` float64: camera-to-world rotation as a unit quaternion, world = the segment's
  first camera, OpenCV axes (x right, y down, z forward);
- `tx, ty, tz` float64: unit direction (world frame) in which the camera centre moved into this
  frame, from the essential matrix; all 0 where the motion was explained by rotation alone
  (no measurable parallax) or no pose was found;
- `confidence` float32: 0..1, the share of tracks that agree with the pose times how far their
  count exceeds the minimum; 0 where no pose was found (the previous pose is carried);
- `method` string: start | homography | essential | none;
- `tracks` int32: inlier tracks behind the pose.
Metadata key `g2w.trajectory` holds JSON: intrinsics (hfov_deg, fx, cx, cy at the working size
`work_width` x `work_height`), how the field of view was found, the HUD-mask share and the
validation record (status, reason, scores, thresholds).
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io import storage
from g2w.rotations import matrices, quaternion
from g2w.trajectory.estimate import RawTrajectory

META_KEY = b"g2w.trajectory"
TRAJECTORY_SCHEMA = pa.schema(
    [
        ("time_s", pa.float64()),
        ("qx", pa.float64()),
        ("qy", pa.float64()),
        ("qz", pa.float64()),
        ("qw", pa.float64()),
        ("tx", pa.float64()),
        ("ty", pa.float64()),
        ("tz", pa.float64()),
        ("confidence", pa.float32()),
        ("method", pa.string()),
        ("tracks", pa.int32()),
    ]
)


def to_table(raw: RawTrajectory, record: dict) -> pa.Table:
    quats = np.array([quaternion(r) for r in raw.rotations]).reshape(-1, 4)
    columns = {
        "time_s": raw.times,
        **{c: quats[:, k] for k, c in enumerate(("qx", "qy", "qz", "qw"))},
        **{c: raw.directions[:, k] for k, c in enumerate(("tx", "ty", "tz"))},
        "confidence": raw.confidence.astype(np.float32),
        "method": raw.methods,
        "tracks": raw.tracks,
    }
    table = pa.Table.from_pydict(columns, schema=TRAJECTORY_SCHEMA)
    return table.replace_schema_metadata({META_KEY: json.dumps(record).encode()})


def write_trajectory(path: str, raw: RawTrajectory, record: dict) -> None:
    """Publish the file whole (a rerun that finds it knows it is complete)."""
    with storage.staged_file(path) as local:
        pq.write_table(to_table(raw, record), local)


def read_record(path: str) -> dict | None:
    """The metadata record of a trajectory file, or None when there is none (or it is unreadable)."""
    try:
        with storage.open_binary(path) as f:
            meta = pq.read_schema(f).metadata or {}
    except (OSError, pa.ArrowInvalid):
        return None
    value = meta.get(META_KEY)
    return json.loads(value) if value else None


def rotations_of(table: pa.Table) -> np.ndarray:
    """(n, 3, 3) camera-to-world rotations of a trajectory table."""
    return matrices(np.stack([table.column(c).to_numpy() for c in ("qx", "qy", "qz", "qw")], axis=1))
