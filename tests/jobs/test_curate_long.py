"""`g2w curate --mode long` on procedural walkthroughs: segments between a hard cut and a
dissolve, a source shorter than the minimum segment, and HUD footage kept only when asked."""

import json

import pyarrow.parquet as pq
import pytest

from g2w.cli import main
from g2w.sample_data.walkthrough import WalkSpec, write_walkthrough
from tests.caption.test_caption import caption_reply
from tests.evaluate.fake_openai import FakeOpenAI

SMALL = dict(width=320, height=180, fps=15)


@pytest.fixture(scope="module")
def videos(tmp_path_factory):
    raw = tmp_path_factory.mktemp("walks")
    return {
        "cut": write_walkthrough(WalkSpec(seed=1, shot_s=(12.0, 12.0), transitions=("cut",), **SMALL), raw),
        "short": write_walkthrough(WalkSpec(seed=2, shot_s=(5.0,), **SMALL), raw),
        "hud": write_walkthrough(WalkSpec(seed=3, shot_s=(10.0,), hud=True, **SMALL), raw),
    }


def _run(tmp_path, videos, *extra):
    out = tmp_path / "long"
    argv = [
        "curate",
        *videos.values(),
        "--output",
        str(out),
        "--mode",
        "long",
        "--min-segment-s",
        "8",
        "--max-segment-s",
        "12",
        "--out-width",
        "320",
        "--out-height",
        "180",
        "--out-fps",
        "15",
        "--preset",
        "ultrafast",
        "--ui-detector",
        "static-edges",
        "--max-ui-coverage",
        "0.02",
        *extra,
    ]
    assert main(argv) == 0
    return out, pq.read_table(out / "manifest.parquet").to_pylist()


def test_long_mode_segments_and_reasons(tmp_path, videos):
    out, rows = _run(tmp_path, videos)
    by_source = {}
    for r in rows:
        by_source.setdefault(r["source"], []).append(r)
    cut = sorted(by_source[videos["cut"]], key=lambda r: r["start_s"])
    kept = [r for r in cut if r["status"] == "kept"]
    assert len(kept) == 2 and all(r["granularity"] == "segment" for r in kept)
    # one segment ends at the cut (12 s), the next starts there: nothing spans it
    assert kept[0]["end_s"] == pytest.approx(12.0, abs=0.2) and kept[1]["start_s"] == pytest.approx(12.0, abs=0.2)
    assert kept[0]["end_boundary"] == "cut" and kept[1]["start_boundary"] == "cut"
    assert all(8 <= r["duration_s"] <= 12 + 1e-6 for r in kept)
    for r in kept:
        assert (out / r["clip_path"]).exists() and r["hud_status"] == "clean"
    short = by_source[videos["short"]]
    assert [r["status"] for r in short] == ["rejected"] and short[0]["reason"] in ("too_short", "no_usable_footage")
    hud = by_source[videos["hud"]]
    assert not [r for r in hud if r["status"] == "kept"]  # HUD windows are rejected without --keep-hud
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "long" and summary["segments"]["kept"] == 2
    assert (out / "report.html").exists() and (out / "windows.parquet").is_dir()
    # a rerun resumes: the clips are not rewritten
    mtimes = {r["segment_id"]: (out / r["clip_path"]).stat().st_mtime_ns for r in kept}
    _, again = _run(tmp_path, videos)
    assert {r["segment_id"] for r in again if r["status"] == "kept"} == set(mtimes)
    assert all((out / "clips" / f"{s}.mp4").stat().st_mtime_ns == m for s, m in mtimes.items())


def test_keep_hud_marks_segments(tmp_path, videos):
    _, rows = _run(tmp_path, {"hud": videos["hud"]}, "--keep-hud")
    kept = [r for r in rows if r["status"] == "kept"]
    assert kept and all(r["hud_status"] == "none" and "ui_overlay" in r["checks_failed"] for r in kept)


def test_trajectory_and_caption_fill_the_dataset_manifest(tmp_path, videos):
    out, rows = _run(tmp_path, {"cut": videos["cut"]})
    assert main(["trajectory", str(out), "--hfov-deg", "90"]) == 0
    server = FakeOpenAI()
    try:
        server.reset(caption_reply)
        assert main(["caption", str(out), "--endpoint", server.url, "--model", "vl"]) == 0
    finally:
        server.close()
    dataset = pq.read_table(out / "dataset.parquet").to_pylist()
    assert len(dataset) == len(rows)  # one row per segment, rejected stretches included
    kept = [r for r in dataset if r["status"] == "kept"]
    assert len(kept) == 2 and all(r["trajectory_status"] in ("accepted", "rejected") for r in kept)
    for r in kept:
        assert (out / r["clip_path"]).exists() and r["hud_status"] == "clean"
        assert (out / r["trajectory_path"]).exists() and r["trajectory_reason"] is not None
        assert r["in_game_jumps"] == []  # two shots split at their cut: no view jump is left inside either
        assert r["caption_status"] == "ok" and json.loads((out / r["caption_path"]).read_text())["caption"]
        assert r["window_ids"] and r["start_boundary"] and r["end_boundary"]  # the quality decisions travel along
    page = (out / "dataset.html").read_text()
    for k in range(len(kept)):  # per kept segment, its contact strip and its trajectory plot
        assert f"long_report/strip_{k:04d}.png" in page and f"long_report/trajectory_{k:04d}.png" in page
        assert (out / "long_report" / f"trajectory_{k:04d}.png").exists()
