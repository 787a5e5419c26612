"""The demo composition on local Ray, kept small: two short videos, one synthesized pair."""

import json
import os

import pyarrow.parquet as pq
import pytest

from g2w.cases.case import load_cases
from g2w.jobs.demo import BASELINES, METHODS, run_demo
from g2w.remove import DEFAULT_METHOD
from g2w.remove.made_from import reusable_edit
from tests.serve.chromium import Browser, chromium_binary


def test_demo_runs_every_stage(ray_local, tmp_path, tiny_clip_config):
    summary = run_demo(tmp_path, count=2, seed=1, duration_s=6.0, samples=1, clip_model=tiny_clip_config)
    assert summary["curate"]["kept"] >= 1
    assert set(summary["timings_s"]) == {"samples", "curate", "assets", "synthesize", "remove_evaluate", "gamecleaner"}
    synth = pq.read_table(tmp_path / "synth" / "manifest.parquet").to_pylist()
    assert [r["status"] for r in synth] == ["ok"]
    assert summary["detect"]["ok"] == 1  # the shipped segmenter found the UI of the one pair
    assert (tmp_path / "detect" / "report.html").exists()
    for method in METHODS:
        assert (tmp_path / "removed" / method / f"{synth[0]['sample_id']}.mp4").exists()
        metrics = json.loads((tmp_path / "eval" / method / "summary.json").read_text())
        assert metrics["ok"] == 1
    aar = {m: summary["evaluate"][m]["scores"]["synthetic"]["AAR"] for m in BASELINES}
    assert aar["identity"] == 0.0 and aar["telea-gt"] > aar["identity"]
    assert DEFAULT_METHOD == "unblend+propagate" and DEFAULT_METHOD in summary["evaluate"]
    gc = summary["gamecleaner"]
    assert gc["train"]["steps"] == 2 and gc["remove"] == {"ok": 1, "error": 0} and gc["reference"] == "self"
    method = json.loads((tmp_path / "gamecleaner" / "removed" / "method.json").read_text())
    assert (method["reference"], method["reference_oracle"]) == ("self", False)  # no ground truth in the removal
    first = load_cases(tmp_path / "synth")[0]
    reused = reusable_edit(method["options"]["reference_edits"], first.case_id, first.source, DEFAULT_METHOD, {})
    assert reused == str(tmp_path / "removed" / DEFAULT_METHOD / f"{first.case_id}.mp4")  # its reference, not remade
    gc_metrics = json.loads((tmp_path / "gamecleaner" / "eval" / "metrics.json").read_text())
    assert gc_metrics["method"]["model"] == "gamecleaner (reference: self)"
    assert (tmp_path / "gamecleaner" / "removed" / f"{synth[0]['sample_id']}.mp4").exists()
    listed = load_cases(tmp_path / "gamecleaner" / "cases.jsonl")  # its removal runs on the first pair alone
    assert listed == load_cases(tmp_path / "synth")[:1]
    assert summary["evaluate"]["gamecleaner"]["ok"] == 1  # its edit covers the whole clip, so the judge scores it
    page = (tmp_path / "report.html").read_text()
    assert "random-initialised" in page and "gamecleaner/run/report.html" in page
    assert "<li style='color:#b00;font-weight:bold'>GameCleaner here is" in page  # each warning on its own line
    for link in (
        "curated/report.html",
        "synth/report.html",
        "eval/telea-gt/report.html",
        f"eval/{DEFAULT_METHOD}/report.html",
        "detect/report.html",
        "raw_contact_sheet.png",
        "before_after.png",
    ):
        assert link in page and os.path.exists(tmp_path / link)
    assert json.loads((tmp_path / "summary.json").read_text())["curate"] == summary["curate"]
    _page_shows_its_pictures(tmp_path / "report.html")


def _page_shows_its_pictures(page):
    """The report as a user opens it: in a browser, every picture loads and the before/after one is there."""
    if chromium_binary() is None:
        pytest.skip("Debian's chromium is not installed (scripts/system-deps.sh)")
    browser = Browser(chromium_binary())
    try:
        browser.goto(page.as_uri())
        images = browser.eval("Array.from(document.images).map(i => [i.getAttribute('src'), i.naturalWidth])")
    finally:
        browser.close()
    assert "before_after.png" in dict(images) and all(width > 0 for _, width in images), images
