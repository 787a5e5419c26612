"""The coarse support keeps the parts that move less than the world, and drops world it bled onto."""

import numpy as np

from g2w.segment.support_motion import WindowSpread, _medians, keep_still_support

H, W, TILE = 128, 192, 32


def _window(spread: np.ndarray, known_tiles=None) -> WindowSpread:
    rows, cols = H // TILE, W // TILE
    tiles = np.array(
        [(r, c) for r in range(rows) for c in range(cols) if known_tiles is None or (r, c) in known_tiles]
    ).reshape(-1, 2)
    crops = spread.reshape(rows, TILE, cols, TILE)[tiles[:, 0], :, tiles[:, 1], :]
    return WindowSpread(W, H, TILE, tiles, crops)


def _scene():
    """A refined widget, a translucent band the support adds on its left (moving 0.4x the world),
    and a world blob the support adds on its right (moving like the world)."""
    refined = np.zeros((H, W), np.uint8)
    refined[40:80, 80:120] = 255
    supported = refined.copy()
    supported[40:80, 64:80] = 255  # translucent band
    supported[50:70, 120:140] = 255  # world blob
    spread = np.full((H, W), 80, np.uint8)  # the world: deviation 20 grey levels
    spread[40:80, 80:120] = 0  # the widget is static
    spread[40:80, 64:80] = 32  # 0.4 of the world's
    return refined, supported, spread


def test_a_translucent_part_is_kept_and_world_moving_like_the_world_is_dropped():
    refined, supported, spread = _scene()
    got = keep_still_support(refined, supported, _window(spread))
    assert (got[40:80, 64:80] == 255).all()
    assert not got[50:70, 120:140].any()
    assert np.array_equal(got[refined > 0], refined[refined > 0])
    # at a strict enough ratio the translucent band goes too; the refined mask never does
    strict = keep_still_support(refined, supported, _window(spread), ratio=0.3)
    assert not strict[40:80, 64:80].any() and np.array_equal(strict, refined)


def test_a_still_world_or_an_unknown_one_decides_nothing():
    refined, supported, spread = _scene()
    still = np.where(spread == 80, 8, spread).astype(np.uint8)  # the world deviates 2 levels: a still camera
    still[50:70, 120:140] = 8
    assert np.array_equal(keep_still_support(refined, supported, _window(still)), supported)
    # only the widget's own tiles are known: no world near the parts, so they stay
    own = {(r, c) for r in range(1, 3) for c in range(2, 4)}
    assert np.array_equal(keep_still_support(refined, supported, _window(spread, own)), supported)


def test_nothing_added_means_the_mask_is_returned_as_is():
    refined, _, spread = _scene()
    assert keep_still_support(refined, refined, _window(spread)) is refined


def test_per_label_medians_match_numpy():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 6, 500)
    values = rng.integers(0, 255, 500).astype(np.float32)
    got = _medians(values, labels, 7)
    for k in range(7):
        expected = np.median(values[labels == k]) if (labels == k).any() else np.nan
        assert np.isclose(got[k], expected, equal_nan=True)
