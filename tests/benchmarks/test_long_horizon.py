"""The long-horizon benchmark's cut accounting: a cut reported at a labelled respawn is not a false
cut, one a little off it is, and the per-game figures add up to the pooled ones."""

import importlib.util
import json
import os

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "long_horizon.py")


def _bench():
    spec = importlib.util.spec_from_file_location("long_horizon_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_cuts_at_respawns_are_not_false():
    bench = _bench()
    assert bench.split_cuts([3.0, 24.5, 37.4, 50.0], [24.433, 37.467]) == (2, 2)
    assert bench.split_cuts([24.9], [24.433]) == (0, 1)
    assert bench.split_cuts([37.267, 37.467], [37.467]) == (1, 1)
    assert bench.split_cuts([], [1.0]) == (0, 0)


def test_total_pools_the_games():
    bench = _bench()
    games = {
        "freedm": {"clips": 1, "minutes": 1.0, "respawn_cuts": 2, "false_cuts": 13, "kept": [30.0]},
        "freedoom": {"clips": 2, "minutes": 2.0, "respawn_cuts": 0, "false_cuts": 4, "kept": [45.0, 60.0]},
    }
    assert bench.total(games) == {
        "clips": 3,
        "minutes": 3.0,
        "respawn_cuts": 2,
        "false_cuts": 17,
        "kept": [30.0, 45.0, 60.0],
    }


def test_shipped_labels_load(tmp_path):
    bench = _bench()
    labels = bench.load_respawns(bench.RESPAWNS)
    assert all(isinstance(t, float) for times in labels.values() for t in times)
    path = tmp_path / "labels.json"
    path.write_text(json.dumps({"clips": {"freedm-demo2-s0001": [24]}}))
    assert bench.load_respawns(str(path)) == {"freedm-demo2-s0001": [24.0]}


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
