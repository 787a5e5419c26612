"""Minute-scale, scene-consistent segments built from the curation job's per-window decisions.

A long-horizon world model needs continuous footage of one place, so a segment is a run of
consecutive windows of one source that
- holds no window the quality checks rejected (dark, frozen, blurry, shaky, bordered, too small);
  a window rejected for its UI overlay breaks the run too, unless `keep_hud` asks for HUD
  footage to be kept and marked for removal instead;
- crosses no hard cut: a window with a cut inside ends the run, but when the cut is its only
  failure the run reaches up to the cut (and the next run starts at it), so a cut costs no
  footage beyond itself;
- crosses no gradual transition: the embedding of the windows before a boundary (CLIP, or the
  appearance descriptor without CLIP weights) is compared with that of the windows after it,
  over `transition_span` windows on each side, and a boundary whose cosine distance is a local
  peak above `transition_distance` splits the run (a dissolve, a slow fade into another map,
  a loading screen that the cut cues see only as gentle change).
Selection verdicts that are about the corpus rather than the footage (not sampled, near
duplicate of the window before) never break a run: continuous footage is, by nature, similar
from one window to the next.

A run is then cut into pieces between `min_s` and `max_s` long: as few equal pieces as fit
under `max_s`; where equal pieces would fall under `min_s`, pieces of `max_s` and a remainder.
A run or remainder shorter than `min_s` is recorded as a rejected row (`too_short`), so every
stretch of usable footage is accounted for. Columnar and per source: the driver never builds a
row per window of a million-window corpus, only one per segment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SELECTION_ONLY = {"not_sampled", "near_duplicate"}  # verdicts about the corpus, not the footage
HUD_CHECK = "ui_overlay"
CUT_CHECK = "scene_cut"

SEGMENT_SCHEMA = pa.schema(
    [
        ("segment_id", pa.string()),
        ("granularity", pa.string()),  # always "segment": the window manifest's rows say "window"
        ("source_id", pa.string()),
        ("source", pa.string()),
        ("start_s", pa.float64()),
        ("end_s", pa.float64()),
        ("duration_s", pa.float64()),
        ("status", pa.string()),  # kept | rejected | error
        ("reason", pa.string()),
        ("error", pa.string()),
        ("width", pa.int32()),
        ("height", pa.int32()),
        ("fps", pa.float64()),
        ("rotation", pa.int32()),
        ("window_ids", pa.list_(pa.string())),  # the windows it overlaps, in order
        ("window_reasons", pa.list_(pa.string())),  # each one's verdict ("" for kept)
        ("checks_failed", pa.list_(pa.string())),  # union of its windows' failed checks
        ("ui_coverage_max", pa.float64()),
        ("hud_status", pa.string()),  # clean | none (HUD kept, not removed yet) | removed
        ("start_boundary", pa.string()),  # source_start | cut | transition | rejected_window | split
        ("end_boundary", pa.string()),  # source_end | cut | transition | rejected_window | split
        ("transition_distance", pa.float64()),  # largest boundary distance inside (how uniform the scene is)
        ("clip_path", pa.string()),
    ]
)


@dataclass(frozen=True)
class SegmentConfig:
    min_s: float = 30.0
    max_s: float = 120.0
    keep_hud: bool = False  # keep HUD windows (marked for removal) instead of rejecting them
    transition_span: int = 2  # windows compared on each side of a boundary
    transition_distance: float | None = None  # cosine distance of a transition; None: the embedder's default

    def __post_init__(self):
        if not 0 < self.min_s <= self.max_s:
            raise ValueError(f"need 0 < min_s <= max_s, got {self.min_s} and {self.max_s}")
        if self.transition_span < 1:
            raise ValueError("transition_span must be at least 1")


# The appearance descriptor sees a turning camera's next wall as new content: on procedural
# walkthroughs, boundaries inside one room reach 0.83 while those across a cut lie at 0.2-0.5
# (docs/long_horizon.md), so its default only splits at a drastic change. CLIP's is not yet
# calibrated (no weights on the build machine).
DEFAULT_TRANSITION_DISTANCE = {"clip": 0.25, "appearance": 0.9}


def segment_id(source_id: str, start_s: float) -> str:
    """Derived from the source and the start (milliseconds): stable across reruns."""
    return f"{source_id}-L{int(round(start_s * 1000)):09d}"


def transition_distances(embeddings: np.ndarray, span: int) -> np.ndarray:
    """(n,) cosine distance at the boundary before each window (0 for the first): the mean unit
    embedding of up to `span` windows before it against that of up to `span` from it."""
    n = len(embeddings)
    out = np.zeros(n)
    if n < 2:
        return out
    e = embeddings.astype(np.float64)
    e /= np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-9)
    csum = np.vstack([np.zeros((1, e.shape[1])), np.cumsum(e, axis=0)])
    for i in range(1, n):
        before = csum[i] - csum[max(0, i - span)]
        after = csum[min(n, i + span)] - csum[i]
        nb, na = np.linalg.norm(before), np.linalg.norm(after)
        out[i] = 1.0 - float(before @ after) / max(float(nb * na), 1e-9) if nb > 1e-9 and na > 1e-9 else 0.0
    return out


def transition_boundaries(distances: np.ndarray, threshold: float) -> np.ndarray:
    """(n,) bool: a boundary before window i is a transition when its distance exceeds the
    threshold and is the largest among its immediate neighbours (a dissolve raises several
    boundaries' distances; only its peak splits)."""
    d = np.asarray(distances)
    left = np.r_[-np.inf, d[:-1]]
    right = np.r_[d[1:], -np.inf]
    return (d > threshold) & (d >= left) & (d > right)


def _pieces(start: float, end: float, cfg: SegmentConfig) -> tuple[list[tuple[float, float]], tuple | None]:
    """([(start, end)] pieces of one run, the too-short remainder or None)."""
    length = end - start
    if length + 1e-6 < cfg.min_s:
        return [], (start, end)
    n = max(1, math.ceil(length / cfg.max_s - 1e-9))
    if length / n + 1e-6 >= cfg.min_s:
        step = length / n
        return [(start + k * step, start + (k + 1) * step if k < n - 1 else end) for k in range(n)], None
    n = int(length // cfg.max_s)
    cuts = [(start + k * cfg.max_s, start + (k + 1) * cfg.max_s) for k in range(n)]
    return cuts, (start + n * cfg.max_s, end)


@dataclass(frozen=True)
class _Windows:
    """What segmenting reads of the windows, one entry per window in (source, start) order."""

    start: np.ndarray
    end: np.ndarray
    usable: np.ndarray  # may be inside a segment
    cut_only: np.ndarray  # rejected for a cut alone: a run may reach up to the cut
    first_cut: np.ndarray  # the window's first and last cut time (NaN without one)
    last_cut: np.ndarray
    hud: np.ndarray
    ui: np.ndarray  # UI coverage, 0 where unknown
    checks: np.ndarray  # (n, len(check_names)) bool: the checks each window failed
    check_names: list[str]  # sorted
    clip_id: pa.Array
    reason: pa.Array  # the verdict, "" for a kept window


def _mask(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), bool)


def _failed_checks(checks: pa.ListArray) -> tuple[np.ndarray, list[str]]:
    """The check lists as an (n, names) bool matrix and its sorted column names."""
    codes = pc.dictionary_encode(pc.list_flatten(checks))
    names = sorted(set(codes.dictionary.to_pylist()))
    column = np.array([names.index(c) for c in codes.dictionary.to_pylist()], np.int64)
    matrix = np.zeros((len(checks), len(names)), bool)
    matrix[pc.list_parent_indices(checks).to_numpy(), column[codes.indices.to_numpy()]] = True
    return matrix, names


def _cut_ends(cut_times: pa.ListArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cut count, first cut time, last cut time) of every window."""
    count = pc.fill_null(pc.list_value_length(cut_times), 0).to_numpy().astype(np.int64)
    values = pc.list_flatten(cut_times).to_numpy(zero_copy_only=False).astype(np.float64)
    ends = np.cumsum(count)
    first, last = np.full(len(count), np.nan), np.full(len(count), np.nan)
    has = count > 0
    first[has], last[has] = values[(ends - count)[has]], values[ends[has] - 1]
    return count, first, last


def _window_arrays(table: pa.Table, keep_hud: bool) -> _Windows:
    """The decisions of `table` (READ_COLUMNS, rows in segmenting order) as arrays."""
    status = table.column("status")
    kept, rejected = _mask(pc.equal(status, "kept")), _mask(pc.equal(status, "rejected"))
    error = _mask(pc.equal(status, "error"))
    reason = table.column("reason").combine_chunks()
    selection_only = _mask(pc.is_in(reason, value_set=pa.array(sorted(SELECTION_ONLY))))
    checks, names = _failed_checks(pc.cast(table.column("checks_failed"), pa.list_(pa.string())).combine_chunks())

    def failed(name: str) -> np.ndarray:
        return checks[:, names.index(name)] if name in names else np.zeros(len(checks), bool)

    allowed = {CUT_CHECK} | ({HUD_CHECK} if keep_hud else set())
    blocking = checks[:, [k for k, name in enumerate(names) if name not in allowed]].any(axis=1)
    has_cut = failed(CUT_CHECK)
    cuts, first_cut, last_cut = _cut_ends(pc.cast(table.column("cut_times"), pa.list_(pa.float64())).combine_chunks())
    ok_verdict = kept | (rejected & (selection_only | ~blocking))
    return _Windows(
        start=table.column("start_s").to_numpy().astype(np.float64),
        end=table.column("end_s").to_numpy().astype(np.float64),
        usable=~error & ok_verdict & ~blocking & ~has_cut,
        cut_only=~error & has_cut & ~blocking & (cuts > 0),
        first_cut=first_cut,
        last_cut=last_cut,
        hud=failed(HUD_CHECK),
        ui=pc.fill_null(table.column("ui_coverage"), 0.0).to_numpy().astype(np.float64),
        checks=checks,
        check_names=names,
        clip_id=table.column("clip_id").combine_chunks(),
        reason=pc.if_else(pa.array(kept), pa.scalar(""), reason),
    )


def _runs(w: _Windows, lo: int, hi: int, transitions: np.ndarray) -> list[tuple[int, int, float, float, str, str]]:
    """(first, last window, start_s, end_s, start boundary, end boundary) of every run among the
    windows lo..hi-1 of one source (window indices relative to lo)."""
    usable, start, end = w.usable[lo:hi], w.start[lo:hi], w.end[lo:hi]
    n = hi - lo
    cut_at_start = np.abs(w.first_cut[lo:hi] - start) < 1e-6  # a cut onto a window's first frame
    linked = usable[:-1] & usable[1:] & ~transitions[1:] & ~cut_at_start[1:] & (np.abs(start[1:] - end[:-1]) < 1e-6)
    firsts = np.flatnonzero(usable & np.r_[True, ~linked])
    lasts = np.flatnonzero(usable & np.r_[~linked, True])
    runs = []
    for i, j in zip(firsts.tolist(), lasts.tolist()):
        a, b = float(start[i]), float(end[j])
        if i == 0:
            start_kind = "source_start"
        elif cut_at_start[i]:
            start_kind = "cut"
        elif transitions[i] and usable[i - 1]:
            start_kind = "transition"
        elif w.cut_only[lo + i - 1] and abs(end[i - 1] - a) < 1e-6:
            start_kind, a = "cut", float(w.last_cut[lo + i - 1])
        else:
            start_kind = "rejected_window"
        if j == n - 1:
            end_kind = "source_end"
        elif cut_at_start[j + 1]:
            end_kind = "cut"
        elif usable[j + 1]:
            end_kind = "transition"
        elif w.cut_only[lo + j + 1] and abs(start[j + 1] - b) < 1e-6:
            end_kind, b = "cut", float(w.first_cut[lo + j + 1])
        else:
            end_kind = "rejected_window"
        runs.append((i, j, a, b, start_kind, end_kind))
    return runs


def source_summary_row(source_id: str, source: str, duration_s: float, reason: str, message: str) -> dict:
    """A rejected row for a source that yields no segment at all (e.g. shorter than `min_s`),
    so the segment manifest alone accounts for every input."""
    return {
        "segment_id": segment_id(source_id, -0.001),
        "granularity": "segment",
        "source_id": source_id,
        "source": source,
        "start_s": 0.0,
        "end_s": float(duration_s),
        "duration_s": float(duration_s),
        "status": "rejected" if reason != "unreadable" else "error",
        "reason": reason,
        "error": message,
        "width": 0,
        "height": 0,
        "fps": 0.0,
        "rotation": 0,
        "window_ids": [],
        "window_reasons": [],
        "checks_failed": [],
        "ui_coverage_max": 0.0,
        "hud_status": "clean",
        "start_boundary": "source_start",
        "end_boundary": "source_end",
        "transition_distance": 0.0,
        "clip_path": None,
    }


READ_COLUMNS = (
    "clip_id",
    "source_id",
    "source",
    "window_index",
    "start_s",
    "end_s",
    "status",
    "reason",
    "checks_failed",
    "cut_times",
    "ui_coverage",
    "width",
    "height",
    "fps",
    "rotation",
)
_PER_SEGMENT = (
    "segment_id",
    "start_s",
    "end_s",
    "duration_s",
    "status",
    "reason",
    "checks_failed",
    "ui_coverage_max",
    "hud_status",
    "start_boundary",
    "end_boundary",
    "transition_distance",
)


def _source_segments(
    w: _Windows, lo: int, hi: int, source_id: str, embeddings: np.ndarray, cfg: SegmentConfig, threshold: float, out
) -> None:
    """Append the segments of one source (its windows lo..hi-1) to `out`: one value per segment
    in each of `out`'s columns, and in `out["windows"]` the indices of the windows it overlaps."""
    distances = transition_distances(embeddings, cfg.transition_span)
    transitions = transition_boundaries(distances, threshold)
    start, end = w.start[lo:hi], w.end[lo:hi]
    for i, j, a0, b0, start_kind, end_kind in _runs(w, lo, hi, transitions):
        pieces, remainder = _pieces(a0, b0, cfg)
        spans = [(a, b, "kept", "") for a, b in pieces]
        if remainder is not None:
            spans.append((*remainder, "rejected", "too_short"))
        spans.sort()
        near = np.arange(max(0, i - 1), min(hi - lo, j + 2))
        for k, (a, b, status, reason) in enumerate(spans):
            inside = near[(start[near] < b - 1e-6) & (end[near] > a + 1e-6)]
            rows = lo + inside
            values = {
                "segment_id": segment_id(source_id, a),
                "start_s": round(a, 6),
                "end_s": round(b, 6),
                "duration_s": round(b - a, 6),
                "status": status,
                "reason": reason,
                "checks_failed": [w.check_names[c] for c in np.flatnonzero(w.checks[rows].any(axis=0))],
                "ui_coverage_max": float(w.ui[rows].max()) if len(rows) else 0.0,
                "hud_status": "none" if w.hud[rows].any() else "clean",
                "start_boundary": start_kind if k == 0 else "split",
                "end_boundary": end_kind if k == len(spans) - 1 else "split",
                "transition_distance": float(distances[inside[1:]].max()) if len(inside) > 1 else 0.0,
            }
            for name, value in values.items():
                out[name].append(value)
            out["windows"].append(rows)
            out["first"].append(lo)


def plan_segments(windows: pa.Table, embeddings: np.ndarray, cfg: SegmentConfig, embedder: str) -> pa.Table:
    """The segment table (SEGMENT_SCHEMA) of a window table (at least READ_COLUMNS; rows with
    window_index >= 0 take part, their decisions filled in) and its (n, d) embeddings, row for
    row. The windows stay columns: one source's embeddings at a time are converted, and the only
    Python values made are those of the segments."""
    threshold = (
        cfg.transition_distance if cfg.transition_distance is not None else DEFAULT_TRANSITION_DISTANCE[embedder]
    )
    keep = np.flatnonzero(_mask(pc.greater_equal(windows.column("window_index"), 0)))
    keys = windows.select(["source_id", "start_s"]).take(pa.array(keep))
    order = keep[pc.sort_indices(keys, [("source_id", "ascending"), ("start_s", "ascending")]).to_numpy()]
    table = windows.select(list(READ_COLUMNS)).take(pa.array(order))
    out: dict[str, list] = {name: [] for name in (*_PER_SEGMENT, "windows", "first")}
    w = _window_arrays(table, cfg.keep_hud)
    ids = table.column("source_id").combine_chunks()
    bounds = np.r_[0, np.flatnonzero(_mask(pc.not_equal(ids[1:], ids[:-1]))) + 1, len(order)].tolist()
    for lo, hi in zip(bounds[:-1], bounds[1:]) if len(order) else ():
        _source_segments(w, lo, hi, str(ids[lo].as_py()), embeddings[order[lo:hi]], cfg, threshold, out)
    return _segment_table(table, w, out)


def _segment_table(table: pa.Table, w: _Windows, out: dict[str, list]) -> pa.Table:
    """SEGMENT_SCHEMA columns: per-segment values from `out`, the source's fields from its first
    window, the window lists taken from the window columns."""
    n = len(out["first"])
    first = pa.array(out["first"], pa.int64())
    rows = pa.array(np.concatenate(out["windows"]) if n else np.zeros(0, np.int64))
    offsets = pa.array(np.r_[0, np.cumsum([len(r) for r in out["windows"]])].astype(np.int32))
    columns = {name: pa.array(out[name], SEGMENT_SCHEMA.field(name).type) for name in _PER_SEGMENT}
    columns |= {
        "granularity": pa.array(["segment"] * n, pa.string()),
        "error": pa.array([""] * n, pa.string()),
        "clip_path": pa.nulls(n, pa.string()),
        "window_ids": pa.ListArray.from_arrays(offsets, w.clip_id.take(rows)),
        "window_reasons": pa.ListArray.from_arrays(offsets, w.reason.take(rows)),
    }
    for name in ("source_id", "source", "width", "height", "fps", "rotation"):
        columns[name] = pc.cast(table.column(name).take(first), SEGMENT_SCHEMA.field(name).type).combine_chunks()
    return pa.table([columns[f.name] for f in SEGMENT_SCHEMA], schema=SEGMENT_SCHEMA)
