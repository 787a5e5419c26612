import cv2
import numpy as np

from g2w.sample_data.textures import colorize, tileable_noise
from g2w.segment.centre_mark import CentreMark, window_centre_mark
from g2w.segment.fullres import FullResTiles
from g2w.segment.predict import FramePrediction, full_mask, instances

H, W = 360, 640


def _world(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return cv2.cvtColor(colorize(tileable_noise(rng, H, W * 3, 8, 4), (30, 40, 50), (200, 190, 170)), cv2.COLOR_RGB2GRAY)


def _cross(luma: np.ndarray) -> np.ndarray:
    """A thin white crosshair (2 px strokes, 21 px across) at the frame's centre."""
    out = luma.copy()
    cy, cx = H // 2, W // 2
    out[cy - 1:cy + 1, cx - 10:cx + 11] = 250
    out[cy - 10:cy + 11, cx - 1:cx + 1] = 250
    return out


def _truth() -> np.ndarray:
    return _cross(np.zeros((H, W), np.uint8)) > 0


def test_a_static_crosshair_over_a_panning_world_is_found_and_nothing_else():
    world = _world()
    frames = [_cross(world[:, 9 * i: 9 * i + W]) for i in range(32)]
    mark = window_centre_mark(frames)
    assert mark is not None
    found = mark.paint(np.zeros((H, W), np.uint8)) > 0
    truth = _truth()
    assert (found & truth).sum() >= 0.9 * truth.sum()
    near = cv2.dilate(truth.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    assert not (found & ~near).any()


def test_a_still_camera_decides_nothing():
    """Every pixel of a still view is static: a crosshair cannot be told from the world."""
    still = _cross(_world()[:, :W])
    assert window_centre_mark([still] * 32) is None


def test_a_world_without_a_crosshair_has_no_mark():
    world = _world(1)
    assert window_centre_mark([world[:, 9 * i: 9 * i + W] for i in range(32)]) is None


def test_the_mark_joins_the_refined_mask_and_the_detected_instances():
    mark = CentreMark(300, 170, np.full((20, 40), 255, np.uint8))
    tiles = FullResTiles(W, H, 32, np.zeros((0, 2), np.int64), np.zeros((0, 32, 32), np.float32), mark)
    prediction = FramePrediction(0, np.zeros((36, 64), np.float32), np.zeros((21, 18, 32), np.float32), tiles)
    mask = full_mask(prediction, W, H)
    assert mask.sum() == 20 * 40 * 255 and mask[170:190, 300:340].all()
    assert instances(prediction, W, H) == [("crosshair", 1.0, [300, 170, 340, 190])]
