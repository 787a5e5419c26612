"""Training and validation pairs are found in synthesis outputs, capture corpora and single pair
folders alike, and validation groups them by source (pure logic, empty files)."""

import json

from g2w.segment.task import sample_dirs, source_group


def _pair(folder, extra: str) -> str:
    folder.mkdir(parents=True)
    for name in ("hud.mp4", "mask.mkv", "annotation.json"):
        (folder / name).write_bytes(b"")
    (folder / extra).write_text(json.dumps({"game": "somegame"}))
    return str(folder)


def test_pairs_from_synthesis_outputs_corpora_and_single_folders(tmp_path):
    synth = _pair(tmp_path / "synth" / "samples" / "s0", "record.json")
    unfinished = tmp_path / "synth" / "samples" / "s1"  # no record.json yet
    unfinished.mkdir()
    (unfinished / "hud.mp4").write_bytes(b"")
    case_a = _pair(tmp_path / "corpus" / "cases" / "game-a", "meta.json")
    case_b = _pair(tmp_path / "corpus" / "cases" / "game-b", "meta.json")
    (tmp_path / "corpus" / "cases" / "game-c.partial").mkdir()  # capture still writing it
    assert sample_dirs([str(tmp_path / "synth"), str(tmp_path / "corpus")]) == [synth, case_a, case_b]
    assert sample_dirs([case_b, str(tmp_path / "nothing-here")]) == [case_b]
    assert source_group(case_a) == "real:somegame"
    assert source_group(synth) == "synthesized"
