"""Long sources become window-aligned segments of analysis work; finished segments are skipped."""

import numpy as np
import pyarrow as pa

from g2w.curate.windows import plan_windows, segments, window_counts
from g2w.jobs.curate import pending_segments, windows_expected


def test_segments_cover_every_window_once():
    assert segments(0, 60) == []
    assert segments(7, 3) == [(0, 3), (3, 6), (6, 7)]
    ten_hours = segments(7200, 60)  # a 10-hour stream of 5 s windows
    assert len(ten_hours) == 120 and ten_hours[-1] == (7140, 7200)
    assert sum(end - first for first, end in ten_hours) == 7200


def test_only_segments_with_missing_windows_are_pending():
    sources = pa.table({"source_id": ["a", "b", "c"], "status": ["ok", "ok", "error"], "duration_s": [36.0, 10.0, 0.0]})
    expected = windows_expected(sources, 5.0)
    assert expected.column("expected").to_pylist() == [7, 2]  # c is unreadable: no work at all
    done = pa.table({"source_id": ["a"] * 4 + ["b"] * 2, "window_index": pa.array([0, 1, 2, 4, 0, 1], pa.int32())})
    pending = pending_segments(expected, done, 3).to_pylist()
    # a: [0, 3) is complete, [3, 6) lacks windows 3 and 5, [6, 7) has nothing; b is done; c never ran
    assert [(p["source_id"], p["first_window"], p["end_window"]) for p in pending] == [("a", 3, 6), ("a", 6, 7)]
    assert pending_segments(expected, done.slice(0, 0), 60).to_pylist() == [
        {"source_id": "a", "status": "ok", "duration_s": 36.0, "first_window": 0, "end_window": 7},
        {"source_id": "b", "status": "ok", "duration_s": 10.0, "first_window": 0, "end_window": 2},
    ]


def test_window_counts_match_the_planned_windows():
    durations = np.array([0.0, -1.0, 4.999, 5.0, 9.9999999, 10.0, 3600.0, np.nan])
    assert window_counts(durations, 5.0).tolist() == [len(plan_windows(d, 5.0)) for d in durations[:-1]] + [0]
