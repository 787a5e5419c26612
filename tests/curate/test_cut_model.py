"""The learned cut decision: its shipped weights load, it judges only the cues' candidates, and on a
walk it has not seen it cuts where the walk cuts and jumps, through the same front end as the rules."""

import json

import numpy as np
import pytest

from g2w.curate import cut_model
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.cuts import FrameSignals, luma_thumb
from g2w.sample_data.walkthrough import WalkSpec, write_walkthrough
from g2w.video.decode import iter_video_frames
from g2w.video.sources import probe_row

SPEC = WalkSpec(seed=7, shot_s=(2.2, 2.3), transitions=("cut",), jumps_s=(1.1,), turn_deg_s=40.0)


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    path = write_walkthrough(SPEC, tmp_path_factory.mktemp("cut_model"))
    with open(path[:-4] + ".json") as f:
        sidecar = json.load(f)
    events = [t["time_s"] for t in sidecar["transitions"]] + sidecar["jumps_s"]
    return path, sorted(int(np.ceil(t * SPEC.fps - 1e-6)) for t in events)


def test_the_shipped_weights_load_and_refuse_other_cues():
    model = cut_model.load()
    assert model.cues == cut_model.CUES and len(model.coef) == len(cut_model.CUES) and 0 < model.threshold < 1
    with open(cut_model.WEIGHTS) as f:
        data = json.load(f)
    with pytest.raises(ValueError, match="other cues"):
        cut_model.CutModel.from_json({**data, "cues": data["cues"][:-1]})


def test_it_cuts_at_the_walk_cut_and_jump_and_nowhere_else(walk):
    path, truth = walk
    signals = FrameSignals(measure_from=cut_model.CANDIDATE_SCORE)
    for _, t, frame in iter_video_frames(path, threads=1):
        signals.add(t, luma_thumb(frame))
    scores = cut_model.load().frame_scores(signals)
    _, candidates = cut_model.cue_matrix(signals)
    assert np.all(scores[np.setdiff1d(np.arange(len(scores)), candidates)] == 0)  # only candidates are judged
    assert np.flatnonzero(scores >= 1.0).tolist() == truth


def test_the_front_end_records_the_learned_cuts(walk):
    path, truth = walk
    rows = AnalyzeWindows(window_s=2.0, cuts="learned").analyze_source(probe_row(path))
    assert {r["cut_detector"] for r in rows} == {"learned"}
    assert sorted(t for r in rows for t in r["cut_times"]) == pytest.approx([i / SPEC.fps for i in truth], abs=1e-3)
