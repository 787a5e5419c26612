"""The real-footage calibration groups clips by game from the capture manifest (unpaired games
have no case folder) and falls back to IWADs of one game."""

import importlib.util
import os

import pyarrow as pa
import pyarrow.parquet as pq

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "calibrate_real_curation.py")


def _bench():
    spec = importlib.util.spec_from_file_location("calibrate_real_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _corpus(root, clips: dict[str, str]):
    os.makedirs(root / "clean")
    for clip_id in clips:
        (root / "clean" / f"{clip_id}.mp4").write_bytes(b"")
    pq.write_table(pa.table({"clip_id": list(clips), "game": list(clips.values())}), root / "manifest.parquet")


def test_games_come_from_the_manifest_and_each_is_a_group(tmp_path):
    bench = _bench()
    _corpus(
        tmp_path,
        {
            "cube2-zoom-s0001": "cube2",
            "freedm-demo1-s0019": "freedm",
            "freedoom1-demo1-s0037": "freedoom",
            "freedoom2-demo2-s0061": "freedoom",
        },
    )
    groups, split = bench.splits(bench.clean_clips(str(tmp_path)))
    assert split == "by game"
    assert {g: [os.path.basename(c) for c in cs] for g, cs in groups.items()} == {
        "cube2": ["cube2-zoom-s0001.mp4"],
        "freedm": ["freedm-demo1-s0019.mp4"],
        "freedoom": ["freedoom1-demo1-s0037.mp4", "freedoom2-demo2-s0061.mp4"],
    }


def test_one_game_splits_by_iwad(tmp_path):
    bench = _bench()
    _corpus(
        tmp_path,
        {"freedoom1-demo1-s0037": "freedoom", "freedoom2-demo2-s0061": "freedoom", "freedoom1-demo3-s0007": "freedoom"},
    )
    groups, split = bench.splits(bench.clean_clips(str(tmp_path)))
    assert "not by game" in split
    assert sorted(groups) == ["freedoom:freedoom1", "freedoom:freedoom2"]
    assert len(groups["freedoom:freedoom1"]) == 2
