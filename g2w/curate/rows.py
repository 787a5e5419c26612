"""The window row: its columns, defaults, and conversion to numpy batches and Parquet.

Every window ends up in the manifest, whatever happened to it, so rows are built with every
column present from the start; later stages fill in embedding, cluster and selection results.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from g2w.curate.windows import Window, clip_id

CROP_SIZE = 224  # CLIP ViT-B/16 input side

MEASURES = (
    "luma_mean",
    "dark_fraction",
    "bright_fraction",
    "sharpness",
    "motion",
    "frozen_fraction",
    "shake",
    "border_fraction",
    "ui_coverage",
    "cut_score",
)

# Columns of the analysed window rows, as written to the work shards and the manifest.
WINDOW_SCHEMA = pa.schema(
    [
        ("clip_id", pa.string()),
        ("source_id", pa.string()),
        ("source", pa.string()),
        ("window_index", pa.int32()),
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("error", pa.string()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("fps", pa.float64()),
        ("rotation", pa.int32()),
        *[(m, pa.float64()) for m in MEASURES],
        ("samples", pa.int32()),
        ("cut_count", pa.int32()),
        ("cut_times", pa.list_(pa.float64())),
        ("cut_detector", pa.string()),  # which detector judged the cuts (cut_modes.MODES)
        ("embedding", pa.list_(pa.float16())),
    ]
)

# Added by selection and standardization, for the manifest.
SELECTION_FIELDS = [
    ("checks_failed", pa.list_(pa.string())),
    ("cluster", pa.int32()),
    ("sampled", pa.bool_()),
    ("dup_of", pa.string()),
    ("dup_similarity", pa.float64()),
    ("clip_path", pa.string()),
    ("decision_cue", pa.string()),  # the cue that drove a learned verdict (--decisions learned)
]
MANIFEST_SCHEMA = pa.schema(list(WINDOW_SCHEMA) + [pa.field(n, t) for n, t in SELECTION_FIELDS])


def base_row(src: dict, window: Window) -> dict:
    """Identity and source columns of a window row, with every measure at a neutral default."""
    return {
        "clip_id": clip_id(str(src["source_id"]), window.index),
        "source_id": str(src["source_id"]),
        "source": str(src["path"]),
        "window_index": window.index,
        "start_s": window.start_s,
        "end_s": window.end_s,
        "status": "ok",
        "reason": "",
        "error": "",
        "width": int(src["width"]),
        "height": int(src["height"]),
        "fps": float(src["fps"]),
        "rotation": int(src["rotation"]),
        **{m: 0.0 for m in MEASURES},
        "samples": 0,
        "cut_count": 0,
        "cut_times": [],
        "cut_detector": "",
    }


def error_row(src: dict, window: Window, reason: str, message: str) -> dict:
    return {**base_row(src, window), "status": "error", "reason": reason, "error": message, "crop": None}


def source_error_row(src: dict) -> dict:
    """The manifest's record of a source that yielded no windows at all (unreadable, or shorter
    than one window), so that the manifest alone accounts for every input."""
    row = base_row(src, Window(-1, 0.0, 0.0))
    reason = src["reason"] or "too_short"
    message = src["error"] or f"{src['path']}: shorter than one window"
    return {**row, "status": "error" if src["status"] != "ok" else "rejected", "reason": reason, "error": message}


def to_columns(rows: list[dict]) -> dict[str, np.ndarray]:
    """Rows -> a numpy batch; list-valued cells become object arrays, crops one uint8 tensor."""
    names = [f.name for f in WINDOW_SCHEMA if f.name != "embedding"] + ["crop"]
    out: dict[str, np.ndarray] = {}
    for name in names:
        values = [r.get(name) for r in rows]
        if name == "crop":
            out[name] = (
                np.stack([v if v is not None else np.zeros((CROP_SIZE, CROP_SIZE, 3), np.uint8) for v in values])
                if values
                else np.zeros((0, CROP_SIZE, CROP_SIZE, 3), np.uint8)
            )
        elif name == "cut_times":
            arr = np.empty(len(values), dtype=object)
            arr[:] = [list(v) for v in values]
            out[name] = arr
        else:
            out[name] = np.array(values)
    return out
