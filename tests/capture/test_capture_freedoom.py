"""Real, short captures of the dsda-doom games (Freedoom, FreeDM), as CI runs them.

`make test` installs both (scripts/capture-deps.sh freedoom freedm), so these tests fail, never
skip, when one is missing. Clips of half a second keep them short; the engine's software
renderer is asked for the corpus size, 1280x720 (it does not go below 640x480).
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from g2w.capture import get_game
from g2w.capture.clip import ClipSpec, capture_clip
from g2w.capture.game import read_raw
from g2w.capture.pair import check_pair
from g2w.capture.process import virtual_display
from g2w.cases.case import load_cases
from g2w.evaluate.prepare import prepare_case
from g2w.video import FrameReader, read_masks

W, H, FRAMES = 1280, 720, 16


@pytest.fixture(scope="module")
def freedoom():
    game = get_game("freedoom")
    assert game.available() is None, game.available()
    return game


@pytest.mark.parametrize("name", ["freedoom", "freedm"])
def test_hud_and_clean_replays_differ_only_in_the_hud(name, tmp_path):
    game = get_game(name)
    assert game.available() is None, game.available()
    demo = game.demos()[0]
    runs = {}
    with virtual_display(W, H) as display:
        for run, hud in (("hud", True), ("clean", False), ("clean2", False)):
            raw = game.capture_run(demo, 2.0, FRAMES, hud, W, H, 30, str(tmp_path / run), 120, display)
            runs[run] = read_raw(raw, W, H)[1:]
    assert runs["hud"].shape == runs["clean"].shape == (FRAMES - 1, H, W, 3)
    assert np.array_equal(runs["clean"], runs["clean2"])  # the replay is deterministic
    check = check_pair(runs["hud"], runs["clean"], game.layout)
    assert check.status == "ok", (check.reason, check.stats)
    outside = check.mask == 0
    assert np.array_equal(runs["hud"][outside], runs["clean"][outside])  # the world is identical
    assert (check.raw <= (check.mask > 0)).all()  # the mask covers every HUD pixel
    status = check.mask[:, round(0.8 * H) :, : W // 2]
    assert (status.reshape(len(status), -1).max(1) == 255).all()  # the status HUD is in every frame
    assert 0.005 < check.stats["hud_coverage"] < 0.2


def test_a_demo_that_cannot_finish_in_time_is_an_error_row(freedoom, tmp_path):
    demo = freedoom.demos()[0]
    row = capture_clip(
        ClipSpec("freedoom", demo.demo_id, 1, frames=15, width=W, height=H), str(tmp_path), timeout_s=0.3
    )
    assert (row["status"], row["reason"]) == ("error", "engine_timeout")
    assert not os.path.exists(row["case_dir"]) and not os.path.exists(row["clean_path"])


def test_capture_job_output_is_read_by_evaluate_and_by_the_demos_real_clip_synthesis(freedoom, ray_local, tmp_path):
    from g2w.hud.bootstrap import bootstrap_library
    from g2w.jobs.capture import run_capture
    from g2w.jobs.demo import synthesize_real

    out = tmp_path / "corpus"
    summary = run_capture(["freedoom"], str(out), clips=1, seed=0, duration_s=0.5, width=W, height=H)
    assert summary["ok"] == 1 and summary["cases"] == 1, summary
    game = summary["games"]["freedoom"]
    assert game["mad_lossless_max"] == 0.0 and game["capture_fps_mean"] > 0
    assert os.path.exists(out / "report.html")

    (case,) = load_cases(out / "cases.jsonl")
    meta = json.loads(open(os.path.join(os.path.dirname(case.source), "meta.json")).read())
    assert meta["engine_version"].startswith("dsda-doom") and meta["pairing"]["mad_outside_mask_mp4"] < 5
    hud, clean = FrameReader(case.source), FrameReader(case.reference)
    assert len(hud) == len(clean) == len(read_masks(case.mask)) == case.frame_count == 15
    edited = tmp_path / "edited"
    edited.mkdir()
    shutil.copy(case.reference, edited / f"{case.case_id}.mp4")  # a perfect removal
    prepared = prepare_case(case, str(edited), str(tmp_path / "evidence"), (640, 360))
    assert prepared["status"] == "ready", prepared

    # `g2w demo --real-clips OUT/clean` synthesizes on the captured clip; an empty folder is skipped.
    bootstrap_library(tmp_path / "lib", per_label=1, seed=0)
    assert (
        synthesize_real(str(tmp_path / "edited" / "none"), str(tmp_path / "lib"), str(tmp_path / "sr0"), 1, 0) is None
    )
    real = synthesize_real(str(out / "clean"), str(tmp_path / "lib"), str(tmp_path / "synth_real"), 1, 0)
    assert real["ok"] == 1 and real["error"] == 0, real
    (sample,) = (tmp_path / "synth_real" / "samples").iterdir()
    assert len(FrameReader(sample / "hud.mp4")) == 15

    again = run_capture(["freedoom"], str(out), clips=1, seed=0, duration_s=0.5, width=W, height=H)
    assert again["ok"] == 1 and again["games"]["freedoom"]["capture_fps_mean"] is None  # reused, not recaptured
