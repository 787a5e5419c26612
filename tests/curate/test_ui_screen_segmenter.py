"""The learned UI screen (`--ui-detector segmenter`): the curation front end, run on synthesized
pairs, reports more UI coverage on the HUD video than on its clean twin, and bars are left out."""

import numpy as np
import pytest

from g2w.cases.case import load_cases
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.ui_screen.segmenter import coverage
from g2w.video.sources import probe_row


def test_coverage_leaves_the_bars_out():
    ui = np.zeros((2, 10, 20), bool)
    ui[:, :2] = True  # the top bar is all "UI"
    ui[:, 5, 5:15] = True
    assert coverage(ui, (4, 0, 0, 0), scale=2.0) == 10 / (8 * 20)
    assert coverage(ui, (0, 0, 0, 0)) == (2 * 20 + 10) / 200


def test_segmenter_screen_sees_the_hud_and_not_the_clean_twin(synth_out):
    step = AnalyzeWindows(window_s=1.5, ui_detector="segmenter")
    hud, clean = [], []
    for case in load_cases(synth_out):
        hud += [r["ui_coverage"] for r in step.analyze_source(probe_row(case.source)) if r["status"] == "ok"]
        clean += [r["ui_coverage"] for r in step.analyze_source(probe_row(case.reference)) if r["status"] == "ok"]
    assert len(hud) == len(clean) >= 2
    assert np.mean(hud) > 0.04 > np.mean(clean), (hud, clean)
    assert np.mean(hud) > 3 * np.mean(clean), (hud, clean)


def test_ui_screen_flag_picks_a_screen_and_auto_is_the_default():
    from g2w.cli import build_parser
    from g2w.curate.options import config_from_args

    parse = lambda *extra: config_from_args(build_parser().parse_args(["curate", "in", "--output", "out", *extra]))  # noqa: E731
    assert parse("--ui-screen", "static-edges").ui_detector == "static-edges"
    assert parse().ui_detector == "auto"


def test_auto_is_the_segmenter_when_the_shipped_checkpoint_loads_else_the_heuristic(tmp_path, monkeypatch):
    import g2w.segment.predict
    from g2w.curate import ui_screen
    from g2w.curate.ui_screen import segmenter as segmenter_screen
    from g2w.curate.ui_screen.static_edges import StaticEdgeScreen

    def fresh():
        ui_screen._segmenter_problem.cache_clear()
        segmenter_screen._segmenter.cache_clear()

    fresh()
    assert ui_screen.resolve_ui_screen("auto") == ("segmenter", None)
    assert ui_screen.resolve_ui_screen("static-edges") == ("static-edges", None)
    monkeypatch.setattr(g2w.segment.predict, "DEFAULT_CHECKPOINT", str(tmp_path))  # no weights there
    fresh()
    screen, reason = ui_screen.resolve_ui_screen("auto")
    assert screen == "static-edges" and "not loadable" in reason
    assert isinstance(ui_screen.make_ui_screen("auto"), StaticEdgeScreen)
    monkeypatch.undo()
    fresh()
    with pytest.raises(ValueError, match="unknown UI screen"):
        ui_screen.resolve_ui_screen("edges")
