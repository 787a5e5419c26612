"""In-game jumps (deaths, respawns, teleports) labelled in real clips are neither clean windows
nor false cuts in the real-footage calibration, in the clips and in concatenations cut from them."""

import importlib.util
import json
import os

import numpy as np

from g2w.curate.cuts import CutThresholds

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "calibrate_real_curation.py")


def _bench():
    spec = importlib.util.spec_from_file_location("calibrate_real_jumps_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _clip(path, n=150, spike=None, kind="continuous", cuts=(), parts=None):
    """A video's cues: quiet steps, a sharp spike at `spike` (a detection), contrast ramp as content."""
    times = np.arange(n) / 30.0
    difference = np.full(n, 0.1)
    histogram = np.full(n, 0.01)
    for i in ([spike] if spike is not None else []) + [int(round(c * 30)) for c in cuts]:
        difference[i], histogram[i] = 1.0, 0.5
    v = {
        "path": path,
        "game": "g",
        "kind": kind,
        "cuts": list(cuts),
        "shaky_from": None,
        "times": times,
        "difference": difference,
        "histogram": histogram,
        "flat": np.zeros(n, bool),
        "shift": np.zeros((n, 2)),
        "frames": {"contrast": np.linspace(10, 40, n)},
    }
    if parts is not None:
        v["recipe_parts"] = parts
    return v


def _labels(clip_id, frames, fingerprint):
    return {clip_id: {"fingerprint": fingerprint, "jumps": [{"frames": frames, "kind": "respawn", "note": ""}]}}


def test_a_detection_at_a_labelled_jump_is_neither_true_nor_false_and_its_window_is_apart():
    bench = _bench()
    clip = _clip("/c/clean/x-s0001.mp4", spike=90)
    fingerprint = [float(clip["frames"]["contrast"][k]) for k in bench.FINGERPRINT_FRAMES]
    assert bench.attach_jumps([clip], _labels("x-s0001", [90, 90], fingerprint)) == []
    r = bench.evaluate([clip], CutThresholds(), 0.25)
    assert (r["detected"], r["at_jump"], r["true_detected"]) == (1, 1, 0)
    assert (r["clean_windows"], r["jump_windows"], r["jump_flagged"]) == (0, 1, 1)
    unlabelled = _clip("/c/clean/y-s0001.mp4", spike=90)
    bench.attach_jumps([unlabelled], {})
    r = bench.evaluate([unlabelled], CutThresholds(), 0.25)
    assert (r["clean_windows"], r["clean_kept"], r["cut_precision"]) == (1, 0, 0.0)


def test_labels_follow_a_clip_into_a_concatenation_and_need_its_fingerprint():
    bench = _bench()
    clip = _clip("/c/clean/x-s0001.mp4")
    fingerprint = [float(clip["frames"]["contrast"][k]) for k in bench.FINGERPRINT_FRAMES]
    # 2 s of another clip, then clip x from its start: its frame 40 is frame 100 of the concatenation
    concat = _clip(
        "/w/g_concat_z.mp4",
        n=200,
        kind="concatenated",
        cuts=[2.0],
        parts=[("/c/clean/z-s0001.mp4", 2.0), ("/c/clean/x-s0001.mp4", 99.0)],
    )
    assert bench.attach_jumps([clip, concat], _labels("x-s0001", [40, 42], fingerprint)) == []
    assert concat["jumps"] == [(100 / 30, 102 / 30)] and clip["jumps"] == [(40 / 30, 42 / 30)]
    warnings = bench.attach_jumps([clip, concat], _labels("x-s0001", [40, 42], [f + 5 for f in fingerprint]))
    assert len(warnings) == 1 and clip["jumps"] == [] and concat["jumps"] == []


def test_the_committed_labels_are_well_formed():
    labels = json.load(open(_bench().LABELS))["clips"]
    assert labels
    for clip_id, label in labels.items():
        assert len(label["fingerprint"]) == 4
        for jump in label["jumps"]:
            first, last = jump["frames"]
            assert 0 < first <= last < 150 and jump["kind"] and jump["note"]


def test_the_promotion_is_chosen_on_the_choose_split_and_needs_the_local_cue():
    """A near-miss cut (difference 0.27 under the 0.3 floor: score 0.9) with most blocks
    unexplained is found once the calibration's promotion grid is searched; a turn's step of the
    same score with few blocks unexplained stays out, so the chosen point keeps the clean clip."""
    bench = _bench()
    concat = _clip("/w/g_concat_a.mp4", n=300, kind="concatenated", cuts=[5.0], parts=[])
    concat["difference"][150] = 0.27
    clean = _clip("/c/clean/b-s0001.mp4", spike=90)
    clean["difference"][90] = 0.27
    for v, share in ((concat, 0.8), (clean, 0.2)):
        v["jumps"] = []
        v["unexplained"] = np.full(len(v["times"]), np.nan)
        v["unexplained"][150 if v is concat else 90] = share
    off = CutThresholds(promote_score=float("inf"))
    assert bench.evaluate([concat, clean], off, 0.25)["cuts_found"] == 0
    chosen = bench.local_cue_thresholds([concat, clean], off)
    r = bench.evaluate([concat, clean], chosen, 0.25)
    assert (r["cuts_found"], r["detected"]) == (1, 1) and r["clean_kept"] == r["clean_windows"] == 3
    assert chosen.promote_score <= 0.9 and 0.2 < chosen.promote_unexplained <= 0.8  # the turn's 0.2 is under the bar
    del concat["unexplained"], clean["unexplained"]
    assert bench.evaluate([concat, clean], chosen, 0.25)["cuts_found"] == 0  # not measured: no promotion
