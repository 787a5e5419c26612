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
        out[i] = 1.0 - float(before @ after) / max(nb * na, 1e-9) if nb > 1e-9 and na > 1e-9 else 0.0
    return out


def transition_boundaries(distances: np.ndarray, threshold: float) -> np.ndarray:
    """(n,) bool: a boundary before window i is a transition when its distance exceeds the
    threshold and is the largest among its immediate neighbours (a dissolve raises several
    boundaries' distances; only its peak splits)."""
    d = np.asarray(distances)
    left = np.r_[-np.inf, d[:-1]]
    right = np.r_[d[1:], -np.inf]
    return (d > threshold) & (d >= left) & (d > right)


@dataclass
class _Window:
    """What segmenting reads of one window (its manifest row's decision)."""

    clip_id: str
    start_s: float
    end_s: float
    usable: bool  # may be inside a segment
    cut_only: bool  # rejected for a cut alone: a run may reach up to the cut
    cut_times: list
    reason: str
    checks: list
    ui_coverage: float
    hud: bool


def _window_state(
    status: str,
    reason: str,
    checks: list,
    cut_times: list,
    start: float,
    end: float,
    clip: str,
    ui: float,
    keep_hud: bool,
) -> _Window:
    checks = list(checks or [])
    hud = HUD_CHECK in checks
    blocking = set(checks) - {CUT_CHECK} - ({HUD_CHECK} if keep_hud else set())
    ok_verdict = status == "kept" or (status == "rejected" and (reason in SELECTION_ONLY or not blocking))
    has_cut = CUT_CHECK in checks
    usable = status != "error" and ok_verdict and not blocking and not has_cut
    cut_only = status != "error" and has_cut and not blocking and bool(cut_times)
    return _Window(
        clip, start, end, usable, cut_only, list(cut_times or []), "" if status == "kept" else reason, checks, ui, hud
    )


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


def _runs(windows: list[_Window], transitions: np.ndarray) -> list[tuple[int, int, float, float, str, str]]:
    """(first, last window index, start_s, end_s, start boundary, end boundary) of every run."""
    runs = []
    i, n = 0, len(windows)
    while i < n:
        if not windows[i].usable:
            i += 1
            continue
        j = i
        while (
            j + 1 < n
            and windows[j + 1].usable
            and not transitions[j + 1]
            and abs(windows[j + 1].start_s - windows[j].end_s) < 1e-6
        ):
            j += 1
        start, end = windows[i].start_s, windows[j].end_s
        before = windows[i - 1] if i > 0 else None
        after = windows[j + 1] if j + 1 < n else None
        if i == 0:
            start_kind = "source_start"
        elif transitions[i] and before.usable:
            start_kind = "transition"
        elif before.cut_only and abs(before.end_s - start) < 1e-6:
            start_kind, start = "cut", float(before.cut_times[-1])
        else:
            start_kind = "rejected_window"
        if after is None:
            end_kind = "source_end"
        elif after.usable:
            end_kind = "transition"
        elif after.cut_only and abs(after.start_s - end) < 1e-6:
            end_kind, end = "cut", float(after.cut_times[0])
        else:
            end_kind = "rejected_window"
        runs.append((i, j, start, end, start_kind, end_kind))
        i = j + 1
    return runs


def _source_rows(
    cols: dict, rows: np.ndarray, embeddings: np.ndarray, cfg: SegmentConfig, threshold: float
) -> list[dict]:
    """Segment rows of one source (`rows`: its window rows, sorted by start)."""
    windows = [
        _window_state(
            cols["status"][r],
            cols["reason"][r],
            cols["checks_failed"][r],
            cols["cut_times"][r],
            float(cols["start_s"][r]),
            float(cols["end_s"][r]),
            cols["clip_id"][r],
            float(cols["ui_coverage"][r] or 0.0),
            cfg.keep_hud,
        )
        for r in rows
    ]
    distances = transition_distances(embeddings, cfg.transition_span)
    transitions = transition_boundaries(distances, threshold)
    first = rows[0]
    base = {
        "granularity": "segment",
        "source_id": str(cols["source_id"][first]),
        "source": str(cols["source"][first]),
        "error": "",
        "width": int(cols["width"][first]),
        "height": int(cols["height"][first]),
        "fps": float(cols["fps"][first]),
        "rotation": int(cols["rotation"][first]),
        "clip_path": None,
    }
    out = []
    for i, j, start, end, start_kind, end_kind in _runs(windows, transitions):
        pieces, remainder = _pieces(start, end, cfg)
        spans = [(a, b, "kept", "") for a, b in pieces]
        if remainder is not None:
            spans.append((*remainder, "rejected", "too_short"))
        spans.sort()
        for k, (a, b, status, reason) in enumerate(spans):
            inside = [w for w in windows[max(0, i - 1) : j + 2] if w.start_s < b - 1e-6 and w.end_s > a + 1e-6]
            hud = any(w.hud for w in inside)
            checks = sorted({c for w in inside for c in w.checks})
            peak = max((distances[windows.index(w)] for w in inside[1:]), default=0.0)
            out.append(
                {
                    **base,
                    "segment_id": segment_id(base["source_id"], a),
                    "start_s": round(a, 6),
                    "end_s": round(b, 6),
                    "duration_s": round(b - a, 6),
                    "status": status,
                    "reason": reason,
                    "window_ids": [w.clip_id for w in inside],
                    "window_reasons": [w.reason for w in inside],
                    "checks_failed": checks,
                    "ui_coverage_max": max((w.ui_coverage for w in inside), default=0.0),
                    "hud_status": "none" if hud else "clean",
                    "start_boundary": start_kind if k == 0 else "split",
                    "end_boundary": end_kind if k == len(spans) - 1 else "split",
                    "transition_distance": float(peak),
                }
            )
    return out


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


def plan_segments(windows: pa.Table, embeddings: np.ndarray, cfg: SegmentConfig, embedder: str) -> pa.Table:
    """The segment table (SEGMENT_SCHEMA) of a window manifest (rows with window_index >= 0,
    their decisions filled in) and its (n, d) embeddings, row for row."""
    threshold = (
        cfg.transition_distance if cfg.transition_distance is not None else DEFAULT_TRANSITION_DISTANCE[embedder]
    )
    cols = {
        c: windows.column(c).to_numpy(zero_copy_only=False)
        if c not in ("checks_failed", "cut_times")
        else windows.column(c).to_pylist()
        for c in READ_COLUMNS
    }
    index = np.asarray(cols["window_index"])
    keep = np.flatnonzero(index >= 0)
    source_ids = np.asarray(cols["source_id"]).astype(str)
    order = keep[np.lexsort((np.asarray(cols["start_s"])[keep], source_ids[keep]))]
    rows: list[dict] = []
    if len(order):
        _, starts = np.unique(source_ids[order], return_index=True)
        for group in np.split(order, starts[1:]):
            rows += _source_rows(cols, group, embeddings[group], cfg, threshold)
    return pa.Table.from_pylist(rows, schema=SEGMENT_SCHEMA)
