"""Long sources become window-aligned segments of analysis work; finished segments are skipped."""

import pyarrow as pa

from g2w.curate.windows import segments
from g2w.jobs.curate import pending_segments


def test_segments_cover_every_window_once():
    assert segments(0, 60) == []
    assert segments(7, 3) == [(0, 3), (3, 6), (6, 7)]
    ten_hours = segments(7200, 60)  # a 10-hour stream of 5 s windows
    assert len(ten_hours) == 120 and ten_hours[-1] == (7140, 7200)
    assert sum(end - first for first, end in ten_hours) == 7200


def test_only_segments_with_missing_windows_are_pending():
    sources = [
        {"source_id": "a", "status": "ok"},
        {"source_id": "b", "status": "ok"},
        {"source_id": "c", "status": "error"},
    ]
    expected = {"a": 7, "b": 2}
    done = pa.table({"source_id": ["a"] * 4 + ["b"] * 2, "window_index": pa.array([0, 1, 2, 4, 0, 1], pa.int32())})
    pending = pending_segments(sources, expected, done, 3)
    # a: [0, 3) is complete, [3, 6) lacks windows 3 and 5, [6, 7) has nothing; b is done; c never ran
    assert [(p["source_id"], p["first_window"], p["end_window"]) for p in pending] == [("a", 3, 6), ("a", 6, 7)]
    assert pending_segments(sources, expected, done.slice(0, 0), 60) == [
        {"source_id": "a", "status": "ok", "first_window": 0, "end_window": 7},
        {"source_id": "b", "status": "ok", "first_window": 0, "end_window": 2},
    ]
