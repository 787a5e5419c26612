"""The full-resolution step: tile bookkeeping is exact, and the shipped refiner opens glyph gaps."""

import cv2
import numpy as np
import pytest
import torch

from g2w.models.hud_segmenter import FullResRefiner, FullResRefinerConfig
from g2w.segment.fullres import (
    FullResTiles,
    candidate_tiles,
    crop_tiles,
    pad_to_tiles,
    tile_statistics,
    upsampled_probability,
    window_refinement,
)
from g2w.segment.inputs import temporal_median
from g2w.segment.predict import DEFAULT_CHECKPOINT, FramePrediction, full_mask


def test_tile_statistics_equal_the_whole_frame_ones_on_every_candidate_tile():
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (70, 100), dtype=np.uint8) for _ in range(9)]
    q = np.zeros((70, 100), np.uint8)
    q[5, 5] = q[66, 97] = 200  # two corner tiles, one of them cut by the frame's edge
    tiles = candidate_tiles([q, np.zeros_like(q)], 32, 64)
    assert sorted(map(tuple, tiles.tolist())) == [(0, 0), (2, 3)]
    m = 4
    median, spread = tile_statistics([crop_tiles(pad_to_tiles(f, 32, m), tiles, 32, m) for f in frames])
    whole = temporal_median(frames)
    mad = np.mean([np.abs(f.astype(np.float32) - whole) for f in frames], axis=0)
    assert np.array_equal(median[0, m:-m, m:-m], whole[:32, :32])
    assert np.array_equal(median[1, m : m + 6, m : m + 4], whole[64:70, 96:100])
    assert np.abs(spread[0, m:-m, m:-m].astype(int) - np.clip(mad[:32, :32] * 4, 0, 255).astype(int)).max() <= 1


def test_tiles_become_a_mask_only_where_the_logits_say_so():
    logits = np.full((2, 32, 32), -3.0, np.float32)
    logits[0, 3:7, 10:20] = 2.0
    logits[1, :, :] = 0.5
    fr = FullResTiles(width=100, height=70, tile=32, tiles=np.array([[0, 1], [2, 3]]), logits=logits)
    mask = fr.mask()
    expected = np.zeros((70, 100), np.uint8)
    expected[3:7, 42:52] = 255
    expected[64:70, 96:100] = 255
    assert np.array_equal(mask, expected)
    assert not fr.mask(threshold=0.9).any()  # logit(0.9) = 2.2: neither tile's logits reach it
    pred = FramePrediction(0, np.ones((14, 20), np.float32), np.zeros((21, 7, 10), np.float32), full_res=fr)
    assert np.array_equal(full_mask(pred, 100, 70), expected)  # the refinement, not the all-UI coarse map
    assert full_mask(pred, 200, 140).all()  # another size: the plain upsampled mask


def _glyph_scene(n=32, h=96, w=160, seed=0):
    """A static text-like HUD (thin bright strokes with world-sized gaps) over a world that pans."""
    rng = np.random.default_rng(seed)
    world = cv2.GaussianBlur(rng.integers(0, 256, (h, w + 4 * n), dtype=np.uint8), (5, 5), 1.5)
    glyphs = np.zeros((h, w), bool)
    for x in range(24, 136, 12):  # 3 px strokes, 9 px gaps
        glyphs[36:60, x : x + 3] = True
    glyphs[36:39, 24:139] = True
    frames = []
    for t in range(n):
        f = world[:, 4 * t : 4 * t + w].copy()
        f[glyphs] = 235
        frames.append(f)
    truth = (
        cv2.dilate(glyphs.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    )  # glyphs grown 2 px, as captured masks are
    coarse = np.zeros((h, w), np.float32)
    coarse[32:64, 20:142] = 0.95  # the network at 256 px: one solid block over the text
    return frames, coarse, truth


def test_the_shipped_refiner_opens_the_gaps_of_a_static_text_over_a_moving_world():
    refiner = FullResRefiner.from_pretrained(DEFAULT_CHECKPOINT)
    assert refiner is not None, "the shipped checkpoint has no full-resolution refiner"
    frames, coarse, truth = _glyph_scene()
    found = window_refinement(refiner, [coarse] * len(frames), frames)
    ious = []
    for fr in found[::8]:
        mask = fr.mask() > 0
        ious.append((mask & truth).sum() / (mask | truth).sum())
    plain = truth.sum() / ((coarse >= 0.5) | truth).sum()
    print("coarse IoU", plain, "refined", ious)
    assert plain < 0.6
    assert min(ious) > plain + 0.15


@pytest.mark.parametrize(
    "config", [FullResRefinerConfig(width=4), FullResRefinerConfig(width=4, window_max=True, dilations=(1, 2, 4, 1))]
)
def test_a_refiner_that_adds_nothing_reproduces_the_plain_mask(config):
    refiner = FullResRefiner(config)
    assert refiner.margin == sum(config.dilations)
    assert refiner.net[0].in_channels == (6 if config.window_max else 5)
    with torch.no_grad():
        for p in refiner.parameters():
            p.zero_()
    rng = np.random.default_rng(1)
    ui = rng.random((18, 32)).astype(np.float32)
    frames = [rng.integers(0, 256, (72, 128), dtype=np.uint8) for _ in range(3)]
    found = window_refinement(refiner, [ui] * 3, frames)
    plain = upsampled_probability(ui, 128, 72) >= 128
    # zero correction: the refined logit is the coarse logit, so the masks agree (up to the
    # 1/255 quantisation right at 0.5)
    q = upsampled_probability(ui, 128, 72)
    near = np.abs(q.astype(int) - 128) <= 1
    assert np.array_equal((found[0].mask() > 0)[~near], plain[~near])


def test_one_found_stroke_brings_the_whole_static_text_and_none_of_the_world():
    """The window's still detail (`still_detail`): seeded by one pixel of one stroke, a removal
    mask grows over every stroke of the static text over a panning world, and nowhere else."""
    frames, coarse, truth = _glyph_scene()
    found = window_refinement(FullResRefiner(FullResRefinerConfig(width=4)), [coarse] * len(frames), frames)
    still = found[0].still
    assert all(fr.still is still for fr in found)  # one per window
    seed = np.zeros(truth.shape, np.uint8)
    seed[45, 61] = 255  # inside the stroke at x 60..62
    grown = still.join(seed) > 0
    strokes = cv2.erode(truth.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0  # the glyphs themselves
    assert grown[strokes].mean() > 0.9
    assert not (grown & ~truth).any()
    assert np.array_equal(still.join(np.zeros_like(seed)), np.zeros_like(seed))
