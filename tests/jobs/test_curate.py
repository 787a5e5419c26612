"""The curation job on local Ray, checked against the sample generator's ground truth.

It runs the default path `make demo` runs: no CLIP weights, so the appearance descriptor and
its own dedup threshold (only the encoder preset differs, which selection never sees)."""

import json
import os
import wave

import numpy as np
import pyarrow.parquet as pq
import pytest

from g2w.curate.appearance import DIM
from g2w.curate.config import CurateConfig
from g2w.jobs.curate import run_curate
from g2w.sample_data import VideoSpec, sidecar_for, write_sample
from g2w.video import probe


def _find(make_spec, wanted, tries=60) -> VideoSpec:
    """The first spec (by seed) whose planned timeline has what a test needs; plans are cheap."""
    for seed in range(tries):
        spec = make_spec(seed)
        if wanted(sidecar_for(spec, "x.mp4")):
            return spec
    raise AssertionError("no seed gives the wanted timeline")


def _whole_window_in(spans) -> bool:
    return any(np.floor(s["end_s"] / 5) * 5 - np.ceil(s["start_s"] / 5) * 5 >= 5 for s in spans)


def _replay_of_clean_window(t) -> bool:
    for d in t["duplicate_spans"]:
        s = d["start_s"]
        before = [b for b in t["blocks"] if b["start_s"] < s and b["end_s"] > s - 5]
        if (
            s % 5 == 0
            and s >= 5
            and all(b["kind"] in ("play", "idle") for b in before)
            and not any(s - 5 < c["time_s"] < s for c in t["cuts"])
        ):
            return True
    return False


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    raw = tmp_path_factory.mktemp("raw")
    specs = [
        _find(lambda s: VideoSpec(s, 0, 640, 360, 24, 20.0, "topdown", False, "duplicate"), _replay_of_clean_window),
        _find(
            lambda s: VideoSpec(s, 1, 640, 360, 30, 25.0, "corridor", False, "frozen"),
            lambda t: _whole_window_in(t["frozen_spans"]) and _whole_window_in(t["dark_spans"]),
        ),
        _find(
            lambda s: VideoSpec(s, 2, 640, 360, 24, 20.0, "racing", False, "idle"),
            lambda t: any(c["time_s"] % 5 for c in t["cuts"]),
        ),
        VideoSpec(0, 3, 854, 480, 30, 15.0, "corridor", True, None),
        VideoSpec(0, 4, 360, 640, 30, 10.0, "racing", False, None),  # portrait
    ]
    videos = [write_sample(s, raw) for s in specs]
    bad = raw / "bad"
    bad.mkdir()
    (bad / "empty.mp4").write_bytes(b"")
    (bad / "notes.mp4").write_text("not a video\n" * 50)
    data = open(videos[0], "rb").read()
    (bad / "truncated.mp4").write_bytes(data[: len(data) // 2])
    with wave.open(str(bad / "tone.wav"), "wb") as w:  # audio only
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(8000)
        w.writeframes((np.sin(np.arange(16000) / 4) * 8000).astype(np.int16).tobytes())
    os.rename(bad / "tone.wav", bad / "tone.mkv")
    tiny = write_sample(VideoSpec(0, 5, 64, 36, 24, 2.0, "topdown", False, None), bad)  # shorter than a window
    return {"dir": str(raw), "videos": videos, "tiny": tiny}


DEMO = CurateConfig(preset="ultrafast")


@pytest.fixture(scope="module")
def curated(inputs, tmp_path_factory, ray_local):
    out = tmp_path_factory.mktemp("curated")
    summary = run_curate([inputs["dir"]], str(out), DEMO)
    rows = pq.read_table(out / "manifest.parquet").to_pylist()
    return {"out": out, "summary": summary, "rows": rows}


def _rows_of(curated, video):
    return [r for r in curated["rows"] if r["source"] == video and r["window_index"] >= 0]


def _truth(video):
    return json.loads(open(video[:-4] + ".json").read())


def test_every_input_and_window_is_accounted_for(inputs, curated):
    sources = pq.read_table(curated["out"] / "sources.parquet").to_pylist()
    by_name = {os.path.basename(s["path"]): s for s in sources}
    assert {by_name[n]["reason"] for n in ("empty.mp4", "notes.mp4", "truncated.mp4", "tone.mkv")} == {
        "empty_file",
        "not_media",
        "corrupt",
        "no_video_stream",
    }
    assert by_name[os.path.basename(inputs["tiny"])]["status"] == "ok"
    failed = {os.path.basename(r["source"]): r["reason"] for r in curated["rows"] if r["window_index"] < 0}
    assert failed[os.path.basename(inputs["tiny"])] == "too_short" and failed["empty.mp4"] == "empty_file"
    for video in inputs["videos"]:
        assert len(_rows_of(curated, video)) == int(_truth(video)["duration_s"] // 5)
    assert len({r["clip_id"] for r in curated["rows"]}) == len(curated["rows"])


def test_cuts_frozen_dark_and_hud_are_rejected(inputs, curated):
    seen = set()
    for video in inputs["videos"]:
        truth = _truth(video)
        for r in _rows_of(curated, video):
            checks = r["checks_failed"]
            inside = lambda spans: any(s["start_s"] <= r["start_s"] and r["end_s"] <= s["end_s"] for s in spans)  # noqa: E731
            if any(r["start_s"] < c["time_s"] < r["end_s"] for c in truth["cuts"]):
                assert "scene_cut" in checks
                seen.add("cut")
            if inside(truth["frozen_spans"]):
                assert "frozen" in checks
                seen.add("frozen")
            if inside(truth["dark_spans"]):
                assert "too_dark" in checks
                seen.add("dark")
            if truth["hud"]["present"] and not inside(truth["frozen_spans"] + truth["dark_spans"]):
                assert "ui_overlay" in checks, (r["ui_coverage"], r["start_s"])
                seen.add("hud")
            if r["status"] == "rejected" and r["reason"] not in ("not_sampled", "near_duplicate"):
                assert r["reason"] == checks[0]
    assert seen == {"cut", "frozen", "dark", "hud"}


def test_the_replay_is_removed_as_a_duplicate_of_its_source(inputs, curated):
    video = inputs["videos"][0]
    rows = {r["window_index"]: r for r in _rows_of(curated, video)}
    checked = 0
    for d in _truth(video)["duplicate_spans"]:
        k = int(d["start_s"] // 5)
        if d["start_s"] % 5 == 0 and rows[k - 1]["sampled"]:
            assert rows[k]["reason"] == "near_duplicate"
            assert rows[k]["dup_of"] == rows[k - 1]["clip_id"]
            checked += 1
    assert checked == 1, "the fixture's video replays exactly one clean window"
    for r in curated["rows"]:  # every removal is auditable
        if r["reason"] == "near_duplicate":
            src = next(x for x in curated["rows"] if x["clip_id"] == r["dup_of"])
            assert src["source_id"] == r["source_id"] and src["window_index"] == r["window_index"] - 1
            a, b = np.array(src["embedding"], np.float32), np.array(r["embedding"], np.float32)
            assert r["dup_similarity"] == pytest.approx(float(a @ b), abs=1e-3)
            assert r["dup_similarity"] > DEMO.appearance_dedup_threshold


def test_distinct_footage_is_not_removed_as_a_duplicate(inputs, curated):
    """Only a window whose centre replays the window before (or a still camera) may go."""
    removed = 0
    for video in inputs["videos"]:
        truth = _truth(video)
        alike = truth["duplicate_spans"] + truth["idle_spans"] + truth["frozen_spans"]
        for r in _rows_of(curated, video):
            centre = (r["start_s"] + r["end_s"]) / 2
            if r["reason"] == "near_duplicate":
                removed += 1
                assert any(s["start_s"] <= centre < s["end_s"] for s in alike), (video, r["window_index"])
    sampled_pairs = sum(1 for r in curated["rows"] if r["sampled"] and r["window_index"] > 0)
    assert removed < sampled_pairs / 3


def test_kept_clips_are_standardized(curated):
    kept = [r for r in curated["rows"] if r["status"] == "kept"]
    assert kept, "something must survive"
    assert sorted(os.listdir(curated["out"] / "clips")) == sorted(f"{r['clip_id']}.mp4" for r in kept)
    for r in kept:
        info = probe(curated["out"] / r["clip_path"])
        assert (info.width, info.height, info.fps, info.frame_count) == (1280, 720, 30.0, 150)
        assert r["cluster"] is not None and r["sampled"] and len(r["embedding"]) == DIM


def test_summary_and_report_name_the_appearance_embedder(curated):
    summary = json.loads((curated["out"] / "summary.json").read_text())
    model = summary["embedding_model"]
    assert model["embedder"] == "appearance" and not model["randomly_initialized"]
    assert model["dedup_threshold"] == DEMO.appearance_dedup_threshold and "no CLIP weights" in model["warning"]
    assert summary["counts"]["windows"] == sum(1 for r in curated["rows"] if r["window_index"] >= 0)
    assert summary["k"] >= 2
    html = (curated["out"] / "report.html").read_text()
    assert "no CLIP weights" in html and "appearance clusters" in html and "kept_by_cluster.png" in html


def test_a_rerun_skips_finished_work_and_changes_nothing(inputs, curated):
    out = curated["out"]
    clips_before = {p: os.path.getmtime(out / "clips" / p) for p in os.listdir(out / "clips")}
    summary = run_curate([inputs["dir"]], str(out), DEMO)
    assert summary["throughput"]["sources_analysed"] == 0
    assert {p: os.path.getmtime(out / "clips" / p) for p in os.listdir(out / "clips")} == clips_before
    again = pq.read_table(out / "manifest.parquet").to_pylist()
    assert [(r["clip_id"], r["status"], r["reason"]) for r in again] == [
        (r["clip_id"], r["status"], r["reason"]) for r in curated["rows"]
    ]
