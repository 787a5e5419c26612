"""Which parts of the coarse support are UI: the ones that move less than the world around them.

The removal mask widens the refined mask by the coarse probability's support (`remove.masks.
supported_mask`): the soft parts the refiner drops (a translucent panel's background, faint
letters) are still inside the coarse map. But the coarse map also bleeds onto the world next to a
widget: at 256 px one network pixel is 5 video pixels, and on Freedoom it covers the weapon sprite
that bobs above the status bar. Such world moves as much as the world anywhere, while a part of
the HUD with opacity a moves only 1 - a as much as the world seen through it.

So each connected part the support adds is kept only when its median temporal spread is at most
`ratio` times the world's spread near it (`WindowSpread`: the statistics window's spread on the
refiner's candidate tiles; the world is the known pixels 8-24 px outside the whole supported
mask). Where too little of the world is known, or the world itself hardly moves (a still camera:
everything is static), nothing is decided and the part is kept, as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from g2w.segment.still_detail import tiles_to_frame

RATIO = 0.75  # a part moving at most this share of the world's motion is UI: opacity >= 0.25
MOVING = 16  # spread units (x4 grey levels, `fullres.tile_statistics`): a world moving less decides nothing
MIN_WORLD_PX = 64  # known world pixels needed near a part to judge it
RING_GAP = np.ones((17, 17), np.uint8)  # the world starts 8 px outside the supported mask ...
RING_REACH = 49  # ... and is averaged over a 49 px square (so it reaches 24 px out)


@dataclass
class WindowSpread:
    """One statistics window's luma spread on its candidate tiles (`tiles`, (K, 2) tile row and
    column; `spread`, (K, tile, tile) uint8, x4 the mean absolute deviation)."""

    width: int
    height: int
    tile: int
    tiles: np.ndarray
    spread: np.ndarray
    _full: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def full(self) -> tuple[np.ndarray, np.ndarray]:
        """(spread, known): full-size uint8 spread (0 outside the tiles) and where it is known;
        built once per window, shared by its frames."""
        if self._full is None:
            ones = np.ones((len(self.tiles), self.tile, self.tile), bool)
            self._full = (
                tiles_to_frame(self.spread, self.tiles, self.tile, self.width, self.height),
                tiles_to_frame(ones, self.tiles, self.tile, self.width, self.height),
            )
        return self._full


def _medians(values: np.ndarray, labels: np.ndarray, count: int) -> np.ndarray:
    """Per label 1..count-1, the median of `values` (float32; NaN for an empty label)."""
    order = np.lexsort((values, labels))
    labels, values = labels[order], values[order]
    starts = np.searchsorted(labels, np.arange(count))
    ends = np.searchsorted(labels, np.arange(count), side="right")
    out = np.full(count, np.nan, np.float32)
    has = ends > starts
    lo, hi = starts[has] + (ends[has] - starts[has] - 1) // 2, starts[has] + (ends[has] - starts[has]) // 2
    out[has] = (values[lo].astype(np.float32) + values[hi]) / 2
    return out


def _box_sums(integral: np.ndarray, ys: np.ndarray, xs: np.ndarray, half: int) -> np.ndarray:
    """Sums over the (2 half + 1)-pixel squares centred on (ys, xs), clipped to the image, from
    `cv2.integral`'s (H + 1, W + 1) table."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    y0, y1 = np.maximum(ys - half, 0), np.minimum(ys + half + 1, h)
    x0, x1 = np.maximum(xs - half, 0), np.minimum(xs + half + 1, w)
    return integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0]


def keep_still_support(
    refined: np.ndarray, supported: np.ndarray, window: WindowSpread, ratio: float = RATIO
) -> np.ndarray:
    """`supported` (0/255) without the parts it adds to `refined` that move like the world."""
    added = ((supported > 0) & (refined == 0)).astype(np.uint8)
    points = cv2.findNonZero(added)  # x, y per pixel; several times faster than np.nonzero here
    if points is None:
        return supported
    points = points.reshape(-1, 2)
    xs, ys = points[:, 0], points[:, 1]
    spread, known = window.full()
    count, labels = cv2.connectedComponents(added, connectivity=8)
    world = known & (cv2.dilate(supported, RING_GAP) == 0)
    half = RING_REACH // 2
    # the world's summed spread and its pixel count in the square around each added pixel
    total = _box_sums(cv2.integral(np.where(world, spread, 0).astype(np.uint8), sdepth=cv2.CV_32S), ys, xs, half)
    pixels = _box_sums(cv2.integral(world.view(np.uint8), sdepth=cv2.CV_32S), ys, xs, half)
    lab = labels[ys, xs]
    world_px = np.bincount(lab, pixels, minlength=count)
    seen = world_px / np.maximum(np.bincount(lab, minlength=count), 1)  # world pixels a part's pixel sees, on average
    world_level = np.bincount(lab, total, minlength=count) / np.maximum(world_px, 1e-6)
    own_known = known[ys, xs]
    own = _medians(spread[ys, xs][own_known].astype(np.float32), lab[own_known], count)
    decided = (seen >= MIN_WORLD_PX) & (world_level >= MOVING) & ~np.isnan(own)
    drop = decided & (own > ratio * world_level)
    drop[0] = False
    if not drop.any():
        return supported
    out = supported.copy()
    gone = drop[lab]
    out[ys[gone], xs[gone]] = 0
    return out
