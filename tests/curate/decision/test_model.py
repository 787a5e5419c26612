"""The shipped decision model on windows measured by the job's own analysis."""

import json

import cv2
import numpy as np
import pytest

from g2w.curate.decision.dataset import measured_windows
from g2w.curate.decision.model import CLASSES, CUES, WEIGHTS, DecisionModel, load_model
from g2w.video.encode import VideoWriter

W, H, FPS = 960, 540, 30  # analysed at its own size, as 720p footage is


def _world(rng) -> np.ndarray:
    """A wide textured panorama: blobs and edges at several scales, like rendered walls."""
    noise = rng.random((H, 4 * W)).astype(np.float32)
    big = cv2.GaussianBlur(noise, (0, 0), 25)
    small = cv2.GaussianBlur(noise, (0, 0), 2)
    luma = np.clip(255 * (0.5 + 4 * (big - big.mean()) + 1.5 * (small - small.mean())), 0, 255)
    return np.dstack([luma, 0.8 * luma, 0.6 * luma]).astype(np.uint8)


def _video(path, frames) -> str:
    with VideoWriter(path, W, H, FPS, crf=18, preset="ultrafast") as w:
        for f in frames:
            w.write(f)
    return str(path)


def _pan(world, step_px: int, gain: float = 1.0):
    for k in range(5 * FPS):
        frame = world[:, k * step_px : k * step_px + W]
        yield frame if gain == 1.0 else cv2.convertScaleAbs(frame, alpha=gain)


@pytest.fixture(scope="module")
def model() -> DecisionModel:
    return load_model()


def test_the_shipped_model_loads_and_scores(model):
    with open(WEIGHTS) as f:
        data = json.load(f)
    assert data["kind"] == "multinomial_logistic_regression" and tuple(data["classes"]) == CLASSES
    cols = {c: np.array([0.0, 10.0]) for c in CUES}
    p = model.probabilities(cols)
    assert p.shape == (2, len(CLASSES)) and np.allclose(p.sum(axis=1), 1.0)


def test_a_clean_fast_turn_is_accepted(model, tmp_path):
    world = _world(np.random.default_rng(0))
    video = _video(tmp_path / "turn.mp4", _pan(world, step_px=W // 50))  # 2 % of the width per frame
    rows = measured_windows(video)
    verdict, _ = model.decide({c: np.array([r[c] for r in rows]) for c in CUES})
    assert list(verdict) == ["accept"], rows


def test_frozen_and_dark_windows_are_rejected_with_their_reason_and_cue(model, tmp_path):
    world = _world(np.random.default_rng(1))
    still = world[:, :W]
    frozen = _video(tmp_path / "frozen.mp4", [still] * (5 * FPS))
    dark = _video(tmp_path / "dark.mp4", _pan(world, step_px=4, gain=0.06))
    rows = measured_windows(frozen) + measured_windows(dark)
    verdict, cue = model.decide({c: np.array([r[c] for r in rows]) for c in CUES})
    assert list(verdict) == ["frozen", "too_dark"], rows
    assert cue[0] in ("frozen_fraction", "motion") and cue[1] in ("luma_mean", "dark_fraction", "sharpness")


def test_the_reason_names_the_cue_with_the_largest_term():
    coef = np.zeros((len(CLASSES), len(CUES)))
    coef[CLASSES.index("shaky"), CUES.index("shake")] = 3.0
    coef[CLASSES.index("shaky"), CUES.index("motion")] = 1.0
    m = DecisionModel(CLASSES, CUES, np.zeros(len(CUES)), np.ones(len(CUES)), coef, np.zeros(len(CLASSES)))
    cols = {c: np.array([0.0]) for c in CUES} | {"shake": np.array([1.0]), "motion": np.array([1.0])}
    verdict, cue = m.decide(cols)
    assert (verdict[0], cue[0]) == ("shaky", "shake")
    again = DecisionModel.from_json(json.loads(json.dumps(m.to_json())))
    assert np.array_equal(again.probabilities(cols), m.probabilities(cols))


def test_a_model_for_other_cues_is_refused():
    data = DecisionModel(CLASSES, CUES, *[np.zeros(len(CUES))] * 2, np.zeros((5, len(CUES))), np.zeros(5)).to_json()
    data["cues"] = data["cues"][:-1]
    with pytest.raises(ValueError, match="cues"):
        DecisionModel.from_json(data)
