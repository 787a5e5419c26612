"""Still detail joins a removal mask where it touches it, on the candidate tiles only."""

import numpy as np

from g2w.segment.still_detail import StillDetail

H, W, T = 40, 120, 8


def _tiles(rows: range, cols: range) -> np.ndarray:
    return np.array([(r, c) for r in rows for c in cols], np.int64).reshape(-1, 2)


def _detail(still: np.ndarray, tiles: np.ndarray) -> StillDetail:
    per_tile = np.stack([still[r * T : (r + 1) * T, c * T : (c + 1) * T] for r, c in tiles]).astype(np.uint8)
    return StillDetail.of(per_tile, tiles, T, W, H)


def _line() -> tuple[np.ndarray, np.ndarray]:
    """A mask over the start of a text line, and the line's still strokes (3 px wide, 3 px
    apart) running on past it, plus a still world edge apart from both."""
    mask = np.zeros((H, W), np.uint8)
    mask[10:20, 10:30] = 255
    still = np.zeros((H, W), bool)
    for x in range(12, 70, 6):
        still[11:19, x : x + 3] = True
    still[30:32, 90:118] = True
    return mask, still


def test_the_rest_of_a_line_joins_and_a_detached_edge_does_not():
    mask, still = _line()
    got = _detail(still, _tiles(range(H // T), range(W // T))).join(mask) > 0
    assert got[11:19, 66:69].all()  # the line's last stroke, 36 px past the mask
    assert got[10:20, 10:30].all()  # the mask itself stays
    assert not got[28:34, 88:120].any()  # the detached edge
    assert not got[:, 70:88].any()  # nothing past the line but its 1 px rim
    assert got[11:19, 69].all() and not got[11:19, 70:].any()


def test_nothing_changes_without_a_touch_and_the_callers_mask_is_not_written():
    mask, still = _line()
    detail = _detail(still, _tiles(range(H // T), range(W // T)))
    before = mask.copy()
    detail.join(mask)
    assert np.array_equal(mask, before)
    empty = np.zeros_like(mask)
    assert not detail.join(empty).any()
    apart = np.zeros_like(mask)
    apart[0:4, 100:104] = 255
    assert np.array_equal(detail.join(apart), apart)


def test_only_candidate_tiles_are_read_and_written():
    """Strokes in tiles that are not candidates are unknown to the window: they never join."""
    mask, still = _line()
    tiles = _tiles(range(H // T), range(0, 6))  # columns 0..47 only
    got = _detail(still, tiles).join(mask) > 0
    assert got[11:19, 42:45].all()
    assert not got[:, 48:].any()
