"""The rest of a text the segmenter found in part: still, detailed pixels that touch the removal mask.

On a HUD the network never saw (cube2's console, fps counter and spectator line) it finds a
text line in part, and the refiner keeps what it found; the missing glyphs are still (static,
or at most half as restless as the world around them when seen through), stand out from their
surroundings in the window's median, and have moving world around them: the centre mark's test
(`centre_mark.still_pixels`, `stand_out`), here on the refiner's candidate tiles. Such pixels
within 2 px of each other form one component, so a text line's glyphs are one; a component that
touches the mask joins it, grown 1 px for the codec's smear, and a detached one stays out (a
static world edge can pass the test too, but the mask does not reach it).

All of it lives on the candidate tiles (the window's tiles, `fullres.candidate_tiles`), so the
cost follows the UI's area: the components are labelled once per window, and each frame only
reads and writes its mask's candidate tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from g2w.segment.centre_mark import CentreMarkRule, stand_out, still_pixels

JOIN = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))  # pixels 2 px apart are one component
GROW = np.ones((3, 3), np.uint8)


def tile_still_detail(
    median: np.ndarray, spread: np.ndarray, margin: int, rule: CentreMarkRule = CentreMarkRule()
) -> np.ndarray:
    """(K, tile, tile) bool over candidate tiles from their `fullres.tile_statistics` crops (with
    `margin`): still pixels that stand out by `rule.detail` in the median and whose surrounding
    world moves (its level at least `rule.moving`)."""
    inner = np.s_[margin:-margin, margin:-margin] if margin else np.s_[:, :]
    out = np.zeros((len(median),) + median[0][inner].shape, bool)
    for k, (med, spr) in enumerate(zip(median, spread)):
        static, world = still_pixels(spr.astype(np.float32) / 4, rule)  # spread is 4x the deviation
        out[k] = (static & (world >= rule.moving) & (stand_out(med) >= rule.detail))[inner]
    return out


def tiles_to_frame(values: np.ndarray, tiles: np.ndarray, tile: int, width: int, height: int) -> np.ndarray:
    """A (height, width) frame holding `values` ((K, tile, tile), one per tile at `tiles`' (row,
    column)) and zeros elsewhere."""
    rows, cols = -(-height // tile), -(-width // tile)
    grid = np.zeros((rows, tile, cols, tile), values.dtype)
    if len(tiles):
        grid[tiles[:, 0], :, tiles[:, 1], :] = values
    return np.ascontiguousarray(grid.reshape(rows * tile, cols * tile)[:height, :width])


def _grid(image: np.ndarray, tile: int) -> np.ndarray:
    """(rows, tile, columns, tile) view of `image` padded with zeros to whole tiles (a copy
    when padding was needed)."""
    h, w = image.shape
    if h % tile or w % tile:
        image = cv2.copyMakeBorder(image, 0, (-h) % tile, 0, (-w) % tile, cv2.BORDER_CONSTANT, 0)
    return image.reshape(image.shape[0] // tile, tile, image.shape[1] // tile, tile)


@dataclass
class StillDetail:
    """One window's still, detailed pixels on its candidate tiles, labelled for joining."""

    tile: int
    tiles: np.ndarray  # (K, 2) tile row, column
    touch: np.ndarray  # (K, tile, tile) int32: the component within 2 px of the pixel (0: none)
    cover: np.ndarray  # (K, tile, tile) int32: the component whose pixels, grown 1 px, cover it (0: none)
    count: int  # components + 1

    @classmethod
    def of(cls, still: np.ndarray, tiles: np.ndarray, tile: int, width: int, height: int) -> StillDetail:
        """From `tile_still_detail`'s (K, tile, tile) map of a width x height frame's tiles."""
        rows, cols = -(-height // tile), -(-width // tile)
        full = tiles_to_frame(still.astype(np.uint8), tiles, tile, cols * tile, rows * tile)
        count, labels = cv2.connectedComponents(cv2.dilate(full, JOIN), connectivity=8)
        cover = np.where(cv2.dilate(full, GROW) > 0, labels, 0)
        at = (tiles[:, 0], slice(None), tiles[:, 1], slice(None))
        return cls(tile, tiles, _grid(labels, tile)[at], _grid(cover.astype(np.int32), tile)[at], count)

    def join(self, mask: np.ndarray) -> np.ndarray:
        """`mask` (full size, 0/255) with every component that touches it added (a new array
        when anything was added)."""
        if self.count <= 1 or not len(self.tiles):
            return mask
        h, w = mask.shape
        grid = _grid(mask, self.tile)
        at = (self.tiles[:, 0], slice(None), self.tiles[:, 1], slice(None))
        found = grid[at] > 0
        touched = np.zeros(self.count, bool)
        touched[self.touch[found]] = True
        touched[0] = False
        if not touched.any():
            return mask
        added = touched[self.cover]
        if not (added & ~found).any():
            return mask
        out = grid.copy() if np.shares_memory(grid, mask) else grid  # never write into the caller's mask
        out[at] = np.where(added, 255, out[at])
        return np.ascontiguousarray(out.reshape(out.shape[0] * self.tile, -1)[:h, :w])
