"""The OCR text-proposal cue: the wheel's real PP-OCRv4 detector on rendered frames."""

import time

import cv2
import numpy as np
import pytest

from g2w.segment.text_proposals import TextBox, TextDetector, TextProposals, detector_size, proposal_maps, rasterize

W, H = 1280, 720


def _world(seed: int = 0) -> np.ndarray:
    """A smooth, textured 720p background with no text in it."""
    rng = np.random.default_rng(seed)
    low = rng.integers(40, 200, (9, 16, 3), dtype=np.uint8)
    return cv2.resize(low, (W, H), interpolation=cv2.INTER_CUBIC)


def _with_text(frame: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The frame with a kill-feed-like text line drawn on it, and the line's pixel box."""
    out = frame.copy()
    text, font, scale, thick = "PLAYER ONE fragged BOT 42", cv2.FONT_HERSHEY_SIMPLEX, 1.1, 2
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    x, y = 80, 120
    cv2.putText(out, text, (x, y), font, scale, (0, 0, 0), thick + 4, cv2.LINE_AA)  # outline
    cv2.putText(out, text, (x, y), font, scale, (255, 255, 255), thick, cv2.LINE_AA)
    return out, (x, y - th, x + tw, y + base)


@pytest.fixture(scope="module")
def detector() -> TextDetector:
    return TextDetector()


def test_detector_size_rounds_to_multiples_of_32():
    assert detector_size(1280, 720, 640) == (640, 352)
    assert detector_size(320, 200, 640) == (320, 192)  # never scaled up


def test_rendered_text_line_is_proposed(detector):
    frame, (x0, y0, x1, y1) = _with_text(_world())
    boxes = detector(frame)
    assert boxes, "no text found"
    prob = rasterize(boxes, W, H)
    line = prob[y0:y1, x0:x1] > 0
    assert line.mean() > 0.9  # the proposals cover the line
    # and stay near it: nothing proposed far from the line
    far = np.ones((H, W), bool)
    far[max(0, y0 - 40) : y1 + 40, max(0, x0 - 40) : x1 + 40] = False
    assert (prob[far] > 0).mean() < 0.001


def test_blank_and_textless_frames_propose_nothing(detector):
    assert detector(np.full((H, W, 3), 90, np.uint8)) == []
    assert detector(_world(3)) == []


def test_tiny_frame_gives_no_boxes(detector):
    assert detector(np.zeros((1, 1, 3), np.uint8)) == []
    assert detector(np.zeros((4, 640, 3), np.uint8)) == []


def test_rasterize_fills_boxes_with_scores_max_on_overlap():
    a = TextBox(np.array([[0.0, 0.0], [0.5, 0.0], [0.5, 0.5], [0.0, 0.5]], np.float32), 0.9)
    b = TextBox(np.array([[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75]], np.float32), 0.6)
    m = rasterize([a, b], 40, 20)
    assert m.shape == (20, 40) and m.dtype == np.float32
    assert m[2, 2] == pytest.approx(0.9) and m[7, 15] == pytest.approx(0.9)  # overlap keeps the max
    assert m[13, 25] == pytest.approx(0.6) and m[19, 39] == 0
    assert a.pixel_box(40, 20) == [0, 0, 20, 10]


def test_frames_between_runs_carry_the_last_map(detector):
    text, _ = _with_text(_world())
    blank = _world()
    frames = [text, blank, blank, blank, blank, text]  # text vanishes after frame 0
    proposals = TextProposals((256, 144), every=4, detector=detector)
    calls = []

    def image(frame):
        def make():
            calls.append(1)
            return frame

        return make

    maps = [proposals.step(t, image(f) if proposals.due(t) else None) for t, f in enumerate(frames)]
    assert len(calls) == proposals.runs == 2  # frames 0 and 4 only
    assert maps[0].shape == (144, 256) and maps[0].max() > 0.5
    for t in (1, 2, 3):
        np.testing.assert_array_equal(maps[t], maps[0])  # carried
    assert maps[4].max() == 0 and maps[5].max() == 0  # frame 4 ran on a textless frame; 5 carries it
    with pytest.raises(ValueError):
        TextProposals((8, 8), every=2, detector=detector).step(0)


def test_cost_per_frame_is_the_run_amortised(detector):
    """Measured: a detector run on a 720p frame, and the per-frame cost with one run every 30
    frames, which must be close to a run divided by 30 (the carried frames cost next to nothing)."""
    frame, _ = _with_text(_world())
    detector(frame)  # warm-up
    t0 = time.perf_counter()
    detector(frame)
    run = time.perf_counter() - t0
    frames = [frame] * 60
    t0 = time.perf_counter()
    maps = list(proposal_maps(frames, (256, 144), every=30, detector=detector))
    per_frame = (time.perf_counter() - t0) / len(frames)
    print(f"detector run {run * 1000:.0f} ms; per frame at every=30: {per_frame * 1000:.1f} ms")
    assert len(maps) == 60
    assert per_frame < run / 30 * 3 + 0.002  # generous: the machine is shared
