"""The one-pass front end on small sample videos, checked against their sidecar ground truth."""

import json

import numpy as np
import pytest

from g2w.curate.analyze import AnalyzeWindows, analysis_size, cut_and_shake
from g2w.sample_data import VideoSpec, write_sample
from g2w.video.sources import probe_row


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    out = tmp_path_factory.mktemp("analyze")
    specs = [
        VideoSpec(5, 0, 480, 270, 24, 20.0, "topdown", False, "frozen"),
        VideoSpec(5, 1, 480, 270, 30, 20.0, "corridor", False, "dark"),
        VideoSpec(5, 2, 480, 270, 24, 20.0, "racing", False, "shaky"),
        VideoSpec(5, 3, 480, 270, 24, 20.0, "sidescroller", False, "blur"),
    ]
    return [write_sample(s, out) for s in specs]


def _rows(path):
    truth = json.loads(open(path[:-4] + ".json").read())
    return AnalyzeWindows().analyze_source(probe_row(path)), truth


def _inside(spans, row):
    return any(s["start_s"] <= row["start_s"] and row["end_s"] <= s["end_s"] for s in spans)


def test_windows_cover_the_source_and_carry_crops(samples):
    rows, truth = _rows(samples[0])
    assert [r["window_index"] for r in rows] == [0, 1, 2, 3]
    assert all(r["status"] == "ok" and r["crop"].shape == (224, 224, 3) for r in rows)
    assert all(r["samples"] >= 35 for r in rows)  # 8 per second over 5 s


@pytest.mark.parametrize(
    "index, span, measure, limit",
    [
        (0, "frozen_spans", "frozen_fraction", 0.9),
        (1, "dark_spans", "dark_fraction", 0.9),
        (2, "shaky_spans", "shake", 0.5),
    ],
)
def test_events_show_in_their_measures(samples, index, span, measure, limit):
    rows, truth = _rows(samples[index])
    inside = [r for r in rows if _inside(truth[span], r)]
    assert inside, "the sample must contain a whole window of the event"
    assert all(r[measure] > limit for r in inside)
    clean = [r for r in rows if not any(s["start_s"] < r["end_s"] and r["start_s"] < s["end_s"] for s in truth[span])]
    assert all(r[measure] < 0.2 for r in clean)


def test_blur_lowers_sharpness(samples):
    rows, truth = _rows(samples[3])
    blurred = [r["sharpness"] for r in rows if _inside(truth["blur_spans"], r)]
    sharp = [r["sharpness"] for r in rows if r["window_index"] == 0]
    assert blurred and max(blurred) < 0.25 * min(sharp)


def test_cuts_land_in_the_windows_that_straddle_them(samples):
    for path in samples:
        rows, truth = _rows(path)
        for r in rows:
            straddles = any(r["start_s"] < c["time_s"] < r["end_s"] for c in truth["cuts"])
            shaky = any(s["start_s"] < r["end_s"] and r["start_s"] < s["end_s"] for s in truth["shaky_spans"])
            if straddles:
                assert r["cut_count"] > 0, (path, r["window_index"])
            elif not shaky:  # violent shake may read as cuts; those windows are rejected anyway
                assert r["cut_count"] == 0, (path, r["window_index"], r["cut_times"])


def test_a_truncated_source_keeps_its_good_windows_and_errors_the_rest(samples, tmp_path):
    data = open(samples[1], "rb").read()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    row = probe_row(str(cut), verify=False)  # the header still promises 20 s
    rows = AnalyzeWindows().analyze_source(row)
    assert len(rows) == 4
    statuses = [r["status"] for r in rows]
    assert statuses[0] == "ok" and statuses[-1] == "error"
    assert all(r["reason"] in ("truncated", "corrupt") for r in rows if r["status"] == "error")


def test_analysis_never_upscales():
    assert analysis_size(480, 270, 540) == (480, 270)
    assert analysis_size(1920, 1080, 540) == (960, 540)
    assert analysis_size(720, 1280, 540) == (540, 960)
    assert np.all(np.array(analysis_size(1001, 563, 540)) % 2 == 0)


@pytest.mark.parametrize("index", [0, 2])
def test_segments_measure_what_the_whole_source_pass_measures(samples, index):
    """Two window-aligned segments (the second decoded after a seek) give the rows of one pass,
    cut cues at the boundary included; only the UI screen's evidence is per segment."""
    source = probe_row(samples[index])
    whole = AnalyzeWindows().analyze_source(source)
    parts = AnalyzeWindows().analyze_source(source, 0, 2) + AnalyzeWindows().analyze_source(source, 2, 4)
    assert [r["window_index"] for r in parts] == [0, 1, 2, 3]
    for a, b in zip(whole, parts):
        assert a["status"] == b["status"] == "ok"
        for key in (
            "samples",
            "cut_count",
            "cut_times",
            "sharpness",
            "motion",
            "dark_fraction",
            "frozen_fraction",
            "shake",
            "cut_score",
            "border_fraction",
        ):
            assert a[key] == pytest.approx(b[key]), (index, a["window_index"], key)
        assert np.array_equal(a["crop"], b["crop"])


def test_a_cut_on_a_window_boundary_is_listed_by_the_window_it_starts():
    times = np.arange(300) / 30.0  # 10 s at 30 fps: frame 150 is the second window's first
    scores, shifts = np.zeros(300), np.zeros((300, 2))
    scores[[60, 150]] = 1.0
    first, second = (cut_and_shake(times, scores, shifts, s, s + 5.0) for s in (0.0, 5.0))
    assert (first["cut_count"], first["cut_times"]) == (1, [2.0])
    assert (second["cut_count"], second["cut_times"]) == (0, [5.0])  # not inside its clip, still a cut
