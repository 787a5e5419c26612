"""Segments from window decisions, without Ray: cuts, rejected windows, HUD, splitting, transitions."""

import numpy as np
import pyarrow as pa
import pytest

from g2w.curate.segments import SegmentConfig, plan_segments, transition_boundaries, transition_distances


def _windows(decisions, source="a"):
    """decisions: per 5 s window, (status, reason, checks, cut_times)."""
    rows = []
    for i, (status, reason, checks, cuts) in enumerate(decisions):
        rows.append(
            {
                "clip_id": f"{source}-{i:05d}",
                "source_id": source,
                "source": f"/{source}.mp4",
                "window_index": i,
                "start_s": 5.0 * i,
                "end_s": 5.0 * i + 5,
                "status": status,
                "reason": reason,
                "checks_failed": checks,
                "cut_times": cuts,
                "ui_coverage": 0.1 if "ui_overlay" in checks else 0.0,
                "width": 640,
                "height": 360,
                "fps": 30.0,
                "rotation": 0,
            }
        )
    return pa.Table.from_pylist(rows)


KEPT = ("kept", "", [], [])
DUP = ("rejected", "near_duplicate", [], [])
CUT = ("rejected", "scene_cut", ["scene_cut"], [27.0])
DARK = ("rejected", "too_dark", ["too_dark"], [])
HUD = ("rejected", "ui_overlay", ["ui_overlay"], [])


def _plan(decisions, cfg, emb=None):
    table = _windows(decisions)
    emb = np.ones((table.num_rows, 4), np.float32) if emb is None else emb
    return plan_segments(table, emb, cfg, "appearance").to_pylist()


def test_cut_splits_exactly_and_duplicates_do_not():
    rows = _plan([KEPT, DUP, KEPT, KEPT, KEPT, CUT, KEPT, KEPT], SegmentConfig(min_s=8, max_s=30))
    kept = [(r["start_s"], r["end_s"], r["start_boundary"], r["end_boundary"]) for r in rows if r["status"] == "kept"]
    assert kept == [(0.0, 27.0, "source_start", "cut"), (27.0, 40.0, "cut", "source_end")]


def test_a_cut_on_a_window_boundary_splits_there():
    at_boundary = ("kept", "", [], [15.0])  # a cut onto the window's first frame: its clip is clean
    rows = _plan([KEPT, KEPT, KEPT, at_boundary, KEPT, KEPT], SegmentConfig(min_s=8, max_s=60))
    kept = [(r["start_s"], r["end_s"], r["start_boundary"], r["end_boundary"]) for r in rows if r["status"] == "kept"]
    assert kept == [(0.0, 15.0, "source_start", "cut"), (15.0, 30.0, "cut", "source_end")]


def test_rejected_window_breaks_and_short_runs_are_recorded():
    rows = _plan([KEPT, KEPT, DARK, KEPT, KEPT, KEPT, KEPT], SegmentConfig(min_s=12, max_s=60))
    assert [(r["status"], r["reason"], r["start_s"], r["end_s"]) for r in rows] == [
        ("rejected", "too_short", 0.0, 10.0),
        ("kept", "", 15.0, 35.0),
    ]


def test_long_runs_split_into_equal_pieces_within_bounds():
    rows = _plan([KEPT] * 10, SegmentConfig(min_s=10, max_s=20))
    assert [v for r in rows for v in (r["start_s"], r["end_s"])] == pytest.approx(
        [0, 50 / 3, 50 / 3, 100 / 3, 100 / 3, 50]
    )
    rows = _plan([KEPT] * 5, SegmentConfig(min_s=15, max_s=20))  # 25 s: two of 12.5 are too short
    assert [(r["status"], r["start_s"], r["end_s"]) for r in rows] == [("kept", 0, 20), ("rejected", 20, 25)]


def test_hud_windows_only_with_keep_hud():
    decisions = [KEPT, HUD, HUD, KEPT]
    assert not [r for r in _plan(decisions, SegmentConfig(min_s=10, max_s=60)) if r["status"] == "kept"]
    rows = _plan(decisions, SegmentConfig(min_s=10, max_s=60, keep_hud=True))
    assert [(r["start_s"], r["end_s"], r["hud_status"]) for r in rows] == [(0, 20, "none")]


def test_gradual_transition_splits_at_its_peak():
    emb = np.array([[1, 0]] * 4 + [[0.7, 0.7]] + [[0, 1]] * 4, np.float32)
    d = transition_distances(emb, 2)
    assert transition_boundaries(d, 0.3).sum() == 1
    rows = _plan([KEPT] * 9, SegmentConfig(min_s=10, max_s=60, transition_distance=0.3), emb)
    kept = [r for r in rows if r["status"] == "kept"]
    assert len(kept) == 2 and kept[0]["end_boundary"] == "transition" and kept[0]["end_s"] in (20.0, 25.0)


def test_unknown_ui_coverage_counts_as_none():
    table = _windows([KEPT] * 4)
    table = table.set_column(table.schema.get_field_index("ui_coverage"), "ui_coverage", pa.nulls(4, pa.float64()))
    rows = plan_segments(table, np.ones((4, 4), np.float32), SegmentConfig(min_s=10, max_s=60), "appearance")
    assert rows.column("ui_coverage_max").to_pylist() == [0.0]
