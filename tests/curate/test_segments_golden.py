"""Segment planning gives, byte for byte, the segments of a fixed window table that the
row-by-row planner gave before it became columnar (the golden file was written by that planner):
every verdict, cut, HUD window, error row, gap and transition of six shuffled sources, under
configurations that split, keep HUD and lower the transition threshold."""

from pathlib import Path

import numpy as np
import pyarrow as pa

from g2w.curate.segments import SegmentConfig, plan_segments

GOLDEN = Path(__file__).parent / "data" / "segments_golden.arrows"

CONFIGS = (
    (SegmentConfig(min_s=8, max_s=30), "appearance"),
    (SegmentConfig(min_s=12, max_s=20, keep_hud=True), "appearance"),
    (SegmentConfig(), "clip"),
    (SegmentConfig(min_s=5, max_s=60, transition_span=3, transition_distance=0.2), "clip"),
)


def _decision(rng: np.random.Generator, start: float) -> tuple:
    """(status, reason, checks_failed, cut_times, ui_coverage) of one window, drawn."""
    cut = round(start + float(rng.uniform(0.5, 4.5)), 3)
    choices = [
        ("kept", "", [], [], 0.0),
        ("kept", "", [], [], 0.05),
        ("rejected", "near_duplicate", [], [], 0.0),
        ("rejected", "not_sampled", [], [], 0.0),
        ("rejected", "scene_cut", ["scene_cut"], [cut], 0.0),
        ("rejected", "scene_cut", ["scene_cut"], [cut, round(cut + 0.4, 3)], 0.0),
        ("rejected", "scene_cut", ["scene_cut"], [], 0.0),
        ("rejected", "near_duplicate", ["scene_cut"], [cut], 0.0),
        ("rejected", "too_dark", ["too_dark"], [], 0.0),
        ("rejected", "ui_overlay", ["ui_overlay"], [], 0.25),
        ("rejected", "ui_overlay", ["scene_cut", "ui_overlay"], [cut], 0.3),
        ("error", "analysis_failed", [], [], 0.0),
    ]
    p = np.array([30, 4, 6, 5, 4, 1, 1, 1, 2, 5, 1, 1], float)
    return choices[rng.choice(len(choices), p=p / p.sum())]


def fixed_windows() -> tuple[pa.Table, np.ndarray]:
    """The window table and its embeddings (float16 values, as the shards store them)."""
    rng = np.random.default_rng(34)
    rows, emb = [], []
    for s, n in enumerate((40, 3, 25, 1, 60, 12)):
        scene = rng.normal(size=8)
        for i in range(n):
            if s == 4 and i == 30:  # one source with a missing window in the middle
                continue
            if rng.random() < 0.08:  # a new scene, sometimes through a dissolve
                new = rng.normal(size=8)
                scene = (scene + new) / 2 if rng.random() < 0.5 else new
            status, reason, checks, cuts, ui = _decision(rng, 5.0 * i)
            rows.append(
                {
                    "clip_id": f"s{s}-{i:05d}",
                    "source_id": f"s{s}",
                    "source": f"/in/s{s}.mp4",
                    "window_index": i,
                    "start_s": 5.0 * i,
                    "end_s": 5.0 * i + 5,
                    "status": status,
                    "reason": reason,
                    "checks_failed": checks,
                    "cut_times": cuts,
                    "ui_coverage": ui,
                    "width": 1280 - 320 * (s % 2),
                    "height": 720,
                    "fps": 30.0 if s != 2 else 25.0,
                    "rotation": 90 if s == 5 else 0,
                }
            )
            emb.append(scene + rng.normal(scale=0.15, size=8))
    rows.append({**rows[0], "clip_id": "s6", "source_id": "s6", "window_index": -1, "status": "error"})
    order = rng.permutation(len(rows))
    embeddings = np.vstack([np.asarray(emb), np.ones((1, 8))]).astype(np.float16)
    return pa.Table.from_pylist([rows[i] for i in order]), embeddings[order]


def planned() -> bytes:
    """Every configuration's segments, one IPC stream."""
    windows, embeddings = fixed_windows()
    sink = pa.BufferOutputStream()
    tables = [plan_segments(windows, embeddings, cfg, embedder) for cfg, embedder in CONFIGS]
    with pa.ipc.new_stream(sink, tables[0].schema) as writer:
        for table in tables:
            writer.write_table(table.combine_chunks())
    return sink.getvalue().to_pybytes()


def test_segments_equal_the_golden_bytes():
    golden = GOLDEN.read_bytes()
    tables = pa.ipc.open_stream(golden).read_all()
    assert tables.num_rows > 40 and len(set(tables.column("reason").to_pylist())) >= 2  # the golden is not trivial
    assert planned() == golden
