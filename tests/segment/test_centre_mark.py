import av
import cv2
import numpy as np
import pytest

from g2w.sample_data.textures import colorize, tileable_noise
from g2w.segment.centre_mark import CentreMark, CentreMarkRule, centre_box, centre_chroma, window_centre_mark
from g2w.segment.fullres import FullResTiles, frame_luma
from g2w.segment.predict import FramePrediction, full_mask, instances

H, W = 360, 640


def _world(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return cv2.cvtColor(
        colorize(tileable_noise(rng, H, W * 3, 8, 4), (30, 40, 50), (200, 190, 170)), cv2.COLOR_RGB2GRAY
    )


def _cross(luma: np.ndarray) -> np.ndarray:
    """A thin white crosshair (2 px strokes, 21 px across) at the frame's centre."""
    out = luma.copy()
    cy, cx = H // 2, W // 2
    out[cy - 1 : cy + 1, cx - 10 : cx + 11] = 250
    out[cy - 10 : cy + 11, cx - 1 : cx + 1] = 250
    return out


def _truth() -> np.ndarray:
    return _cross(np.zeros((H, W), np.uint8)) > 0


def test_a_static_crosshair_over_a_panning_world_is_found_and_nothing_else():
    world = _world()
    frames = [_cross(world[:, 9 * i : 9 * i + W]) for i in range(32)]
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
    assert window_centre_mark([world[:, 9 * i : 9 * i + W] for i in range(32)]) is None


def test_the_mark_joins_the_refined_mask_and_the_detected_instances():
    mark = CentreMark(300, 170, np.full((20, 40), 255, np.uint8))
    tiles = FullResTiles(W, H, 32, np.zeros((0, 2), np.int64), np.zeros((0, 32, 32), np.float32), mark)
    prediction = FramePrediction(0, np.zeros((36, 64), np.float32), np.zeros((21, 18, 32), np.float32), tiles)
    mask = full_mask(prediction, W, H)
    assert mask.sum() == 20 * 40 * 255 and mask[170:190, 300:340].all()
    assert instances(prediction, W, H) == [("crosshair", 1.0, [300, 170, 340, 190])]


def av_frame(rgb: np.ndarray) -> av.VideoFrame:
    return av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")


def _coded(rgb: np.ndarray) -> av.VideoFrame:
    """An RGB image as a decoder hands it over: a yuv420p frame."""
    return av_frame(rgb).reformat(format="yuv420p")


def test_a_red_crosshair_as_bright_as_the_world_is_found_by_its_colour():
    """Luma alone cannot tell it from the world's average (cube2's red crosshair on dark walls);
    its chroma can. Without the chroma the same window gives (next to) nothing."""
    rng = np.random.default_rng(2)
    world = colorize(tileable_noise(rng, H, W * 3, 8, 4), (10, 30, 40), (110, 110, 100))
    red = np.array([170, 25, 25], np.uint8)  # luma ~68, the world's middle
    cy, cx = H // 2, W // 2
    frames = []
    for i in range(32):
        rgb = np.ascontiguousarray(world[:, 9 * i : 9 * i + W])
        rgb[cy - 1 : cy + 2, cx - 10 : cx + 11] = red
        rgb[cy - 10 : cy + 11, cx - 1 : cx + 2] = red
        frames.append(_coded(rgb))
    lumas = [frame_luma(f) for f in frames]
    truth = np.zeros((H, W), bool)
    truth[cy - 1 : cy + 2, cx - 10 : cx + 11] = truth[cy - 10 : cy + 11, cx - 1 : cx + 2] = True
    found_by_luma = window_centre_mark(lumas)
    by_luma = 0 if found_by_luma is None else (found_by_luma.paint(np.zeros((H, W), np.uint8)) > 0)[truth].mean()
    mark = window_centre_mark(lumas, [centre_chroma(f) for f in frames])
    assert mark is not None
    found = mark.paint(np.zeros((H, W), np.uint8)) > 0
    assert by_luma < 0.3
    assert found[truth].mean() >= 0.9
    near = cv2.dilate(truth.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    assert not (found & ~near).any()


def test_the_centre_chroma_reads_coded_planes_and_packed_frames_alike():
    rng = np.random.default_rng(3)
    rgb = colorize(tileable_noise(rng, H, W, 8, 4), (200, 20, 40), (20, 160, 220))
    coded = centre_chroma(_coded(rgb)).astype(int)
    packed = centre_chroma(av_frame(rgb)).astype(int)
    x0, y0, bw, bh = centre_box(W, H)
    assert coded.shape == packed.shape == (bh, bw, 2)
    assert np.abs(coded - packed).mean() < 2  # only 4:2:0's lost detail differs
    assert coded[..., 1].std() > 10  # the colour field is really there
    grey = av_frame(rgb).reformat(format="gray")
    assert centre_chroma(grey) is None


def test_a_translucent_crosshair_is_found_though_the_world_shows_through_it():
    """At 60 % opacity the mark's pixels move 40 % as much as the world behind them: not static
    in absolute terms, but far stiller than the world around them."""
    world = _world(4).astype(np.float32)
    cross = _truth()
    frames = []
    for i in range(32):
        view = world[:, 9 * i : 9 * i + W].copy()
        view[cross] = 0.6 * 250 + 0.4 * view[cross]
        frames.append(view.astype(np.uint8))
    opaque_only = window_centre_mark(frames, rule=CentreMarkRule(translucent=0))
    assert opaque_only is None or (opaque_only.paint(np.zeros((H, W), np.uint8)) > 0)[cross].mean() < 0.3
    mark = window_centre_mark(frames)
    assert mark is not None
    found = mark.paint(np.zeros((H, W), np.uint8)) > 0
    assert found[cross].mean() >= 0.9
    near = cv2.dilate(cross.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
    assert not (found & ~near).any()


@pytest.mark.parametrize("height,width", [(1, 1), (2, 2), (4, 6), (9, 7)])
def test_tiny_frames_give_a_mark_of_their_own_size_or_none(height, width):
    """The box never reaches outside the frame, so luma and chroma crops agree even at 1x1."""
    rng = np.random.default_rng(5)
    frames = [av_frame(rng.integers(0, 256, (height, width, 3), dtype=np.uint8)) for _ in range(32)]
    mark = window_centre_mark([frame_luma(f) for f in frames], [centre_chroma(f) for f in frames])
    if mark is not None:
        assert mark.paint(np.zeros((height, width), np.uint8)).shape == (height, width)
        assert mark.mask.shape[0] <= height and mark.mask.shape[1] <= width
