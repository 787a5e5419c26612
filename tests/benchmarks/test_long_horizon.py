"""The long-horizon benchmark's cut accounting: a cut takes the hand label nearest it, only a
respawn or a teleport is a true cut (once), and the per-game figures add up to the pooled ones."""

import importlib.util
import json
import os
from collections import Counter

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "long_horizon.py")


def _bench():
    spec = importlib.util.spec_from_file_location("long_horizon_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


TRUE = {"respawn", "teleport"}


def test_only_a_labelled_discontinuity_is_a_true_cut():
    bench = _bench()
    events = [(3.5, "fast_turn"), (24.433, "respawn"), (37.267, "flash"), (37.467, "respawn"), (44.0, "teleport")]
    assert bench.classify_cuts([3.533, 24.5, 37.267, 37.4, 44.1, 50.0], events, TRUE) == [
        (False, "fast_turn"),
        (True, "respawn"),
        (False, "flash"),  # nearer its own label than the respawn 0.2 s on
        (True, "respawn"),
        (True, "teleport"),
        (False, "unlabelled"),
    ]
    assert bench.classify_cuts([24.9], events, TRUE) == [(False, "unlabelled")]
    assert bench.classify_cuts([24.5, 24.433], events, TRUE) == [(False, "repeat"), (True, "respawn")]
    assert bench.classify_cuts([], events, TRUE) == []


def test_total_pools_the_games():
    bench = _bench()
    games = {
        "freedm": {**bench._empty(), "clips": 1, "minutes": 1.0, "true_cuts": 2, "false_cuts": 13, "kept": [30.0]},
        "freedoom": {**bench._empty(), "clips": 2, "minutes": 2.0, "false_cuts": 4, "kept": [45.0, 60.0]},
    }
    games["freedm"]["kinds"] = Counter(respawn=2, fast_turn=13)
    games["freedoom"]["kinds"] = Counter(fast_turn=3, flash=1)
    pooled = bench.total(games)
    assert {k: pooled[k] for k in ("clips", "minutes", "true_cuts", "false_cuts", "kept")} == {
        "clips": 3,
        "minutes": 3.0,
        "true_cuts": 2,
        "false_cuts": 17,
        "kept": [30.0, 45.0, 60.0],
    }
    assert bench.per_minute(pooled["kinds"], pooled["minutes"], TRUE, False) == "fast_turn 5.33333, flash 0.333333"
    assert bench.per_minute(pooled["kinds"], pooled["minutes"], TRUE, True) == "respawn 0.666667"


def test_shipped_labels_load_and_bare_times_are_respawns(tmp_path):
    bench = _bench()
    labels, true_kinds = bench.load_labels(bench.LABELS)
    assert true_kinds == TRUE
    assert all(isinstance(t, float) and isinstance(k, str) for events in labels.values() for t, k in events)
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"clips": {"freedm-demo2-s0001": [24, {"t": 3.5, "kind": "fast_turn"}]}}))
    assert bench.load_labels(str(path)) == ({"freedm-demo2-s0001": [(3.5, "fast_turn"), (24.0, "respawn")]}, TRUE)


def test_capture_note_from_the_cases(tmp_path):
    bench = _bench()
    for clip, game in (
        ("freedm-demo2-s0001", "freedm"),
        ("freedm-demo1-s0001", "freedm"),
        ("freedoom1-demo2-s0001", "freedoom"),
    ):
        os.makedirs(tmp_path / "cases" / clip)
        meta = {"game": game, "frames": 1800, "fps": 30, "width": 1280, "height": 720}
        (tmp_path / "cases" / clip / "meta.json").write_text(json.dumps(meta))
    assert bench.capture_note(str(tmp_path)) == (
        "freedm: 2 clips of 60 s, 1280x720, 30 fps; freedoom: 1 clips of 60 s, 1280x720, 30 fps"
    )
