"""How the segmenter's probabilities become a removal mask (`g2w.remove.masks`): pure logic."""

import cv2
import numpy as np

from g2w.remove.masks import MaskRefine, _refine_frame, removal_masks, supported_mask
from g2w.segment.predict import FramePrediction, full_mask


def _u8(p: np.ndarray) -> np.ndarray:
    return np.clip(p * 255 + 0.5, 0, 255).astype(np.uint8)


def test_plain_refinement_is_the_detectors_threshold():
    rng = np.random.default_rng(0)
    prob = rng.random((18, 32)).astype(np.float32)
    got = next(removal_masks([_u8(prob)], 128, 72, MaskRefine()))
    assert np.array_equal(got, full_mask(FramePrediction(0, prob, np.zeros((21, 9, 16), np.float32)), 128, 72))


def test_windowed_stream_matches_each_frames_own_window():
    rng = np.random.default_rng(1)
    for n in (1, 4, 11):
        for window in (3, 8, 15):
            probs = [rng.integers(0, 256, (6, 8), dtype=np.uint8) for _ in range(n)]
            refine = MaskRefine(window=window, low=0.3)
            got = list(removal_masks(iter(probs), 8, 6, refine))
            assert len(got) == n
            half = window // 2
            for i in range(n):
                win = np.stack(probs[max(0, i - half):i + half + 1]).astype(np.uint32)
                assert np.array_equal(got[i], _refine_frame(probs[i], (win.sum(0) // len(win)).astype(np.uint8),
                                                            refine)), (n, window, i)


def test_a_widget_the_network_misses_in_one_frame_is_kept_by_the_temporal_mean():
    seen = np.zeros((20, 30), np.float32)
    seen[5:10, 5:15] = 0.9
    missed = seen * 0.4  # 0.36: below the threshold in this frame alone
    probs = [_u8(seen)] * 4 + [_u8(missed)] + [_u8(seen)] * 4
    plain = list(removal_masks(probs, 30, 20, MaskRefine()))
    pooled = list(removal_masks(probs, 30, 20, MaskRefine(window=9)))
    assert not plain[4].any()
    assert np.array_equal(pooled[4] > 0, seen > 0.5)


def test_hysteresis_keeps_faint_pixels_only_next_to_confident_ones():
    p = np.zeros((20, 40), np.float32)
    p[5:10, 5:10] = 0.9  # a widget
    p[5:10, 10:14] = 0.35  # its faint rim, touching it
    p[5:10, 25:30] = 0.35  # faint and alone: noise
    got = _refine_frame(_u8(p), None, MaskRefine(low=0.3)) > 0
    assert got[5:10, 5:14].all()
    assert not got[:, 20:].any()
    assert not (_refine_frame(_u8(p), None, MaskRefine()) > 0)[:, 10:].any()


def test_enclosed_gaps_inside_a_found_widget_are_filled():
    p = np.zeros((30, 30), np.float32)
    p[5:25, 5:25] = 0.9
    p[10:20, 10:20] = 0.1  # a frame-shaped widget whose middle the network doubts
    got = _refine_frame(_u8(p), None, MaskRefine(fill_enclosed=True)) > 0
    assert got[5:25, 5:25].all() and got.sum() == 400
    assert not (_refine_frame(_u8(p), None, MaskRefine()) > 0)[10:20, 10:20].any()


def test_the_coarse_support_widens_a_found_widget_and_nothing_else():
    # model resolution 16x32, video 64x128: a translucent panel the refiner only half kept
    prob = np.zeros((16, 32), np.float32)
    prob[2:8, 2:14] = 0.8  # the panel, as the network sees it
    prob[10:14, 20:28] = 0.8  # a blob the refiner rejected (it found nothing there)
    refined = np.zeros((64, 128), np.uint8)
    refined[12:24, 16:40] = 255  # the panel's text, kept by the refiner
    got = supported_mask(refined, _u8(prob), 0.3) > 0
    assert got[12:24, 16:40].all()  # nothing the refiner kept is lost
    assert got[10:30, 10:54].all()  # the panel's soft rest joins it
    assert not got[40:56, 80:112].any()  # the detached blob stays out
    assert not got[:, 60:].any()
    # below the support level nothing is added; with no refined pixel, nothing at all
    assert np.array_equal(supported_mask(refined, _u8(prob * 0.3), 0.3), refined)
    assert not supported_mask(np.zeros_like(refined), _u8(prob), 0.3).any()


def test_support_reaches_a_faint_part_only_through_a_connected_path():
    prob = np.zeros((10, 30), np.float32)
    prob[3:7, 2:8] = 0.9
    prob[3:7, 8:14] = 0.35  # the widget's faint tail, touching it
    prob[3:7, 20:26] = 0.35  # as faint, but apart
    refined = (cv2.resize(_u8(prob), (30, 10)) >= 128).astype(np.uint8) * 255  # same size: only the confident part
    got = supported_mask(refined, _u8(prob), 0.3) > 0
    assert got[3:7, 2:14].all() and not got[:, 15:].any()
    # the whole stream path without a refiner: plain threshold, widened by its own support
    stream = next(removal_masks([_u8(prob)], 30, 10, MaskRefine(support=0.3))) > 0
    assert np.array_equal(stream, got)
    assert MaskRefine(support=0.3).uses_full_res and not MaskRefine(support=0.3).is_plain
    assert not MaskRefine(window=5, support=0.3).uses_full_res
    assert MaskRefine(support=0.3, still=True).uses_full_res and not MaskRefine(still=True).is_plain
