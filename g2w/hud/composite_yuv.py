"""HUD layers composited straight into a decoded I420 (yuv420p) frame, without an RGB round trip.

The renderer receives the clip's frames as the decoder made them (planar Y'CbCr 4:2:0, limited
range). Converting every frame to RGB to draw the HUD and back to I420 for x264 cost about
1.3-1.6 CPU s per 5 s 720p output here, twice per sample (`benchmarks/profiles/throughput.md`).
Instead, only the layers' own patches are converted, RGB -> Y'CbCr with the clip's matrix, and
blended in Y'CbCr:

- "over" is a convex combination and RGB -> Y'CbCr is affine, so blending the converted colours
  is the same expression as converting the RGB blend: luma is blended per pixel, exactly as in
  `g2w.hud.composite`, rounded once per group box.
- chroma has one sample per 2x2 block. Blending each pixel in the block and averaging (what a
  4:2:0 conversion of the RGB result does) gives mean(a*fg) + (1 - mean(a)) * bg when the
  background's chroma is constant over the block, which is what 4:2:0 stores; that is what is
  computed, block by block.

Pixels no layer covers are never touched: their luma, and the chroma of every block no layer
covers, pass through bit for bit, so `clean.mp4` and `hud.mp4` start from the same bytes
everywhere outside the HUD. The mask is the same binary alpha > 0 mask as the RGB compositor's.

Frames are (3h/2, w) I420 arrays (`g2w.video.yuv`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from g2w.hud.composite import Compositor, disjoint_groups
from g2w.hud.layers import Layer
from g2w.types import Box
from g2w.video.yuv import planes, ycbcr_matrix


def premultiplied(patch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(alpha in 0-1, RGB times alpha) of an RGBA uint8 patch, float32."""
    a = patch[..., 3].astype(np.float32) * np.float32(1 / 255)
    return a, patch[..., :3].astype(np.float32) * a[..., None]


def half(a: np.ndarray) -> np.ndarray:
    """Mean over each 2x2 block of an even-sized float32 image (one or more channels)."""
    return cv2.resize(a, (a.shape[1] // 2, a.shape[0] // 2), interpolation=cv2.INTER_AREA)


class YuvCompositor:
    """(HUD I420 frame, mask) from a clean I420 frame and the layers of one frame, on the CPU.

    Blending is done with premultiplied colour, a * fg = M (a * rgb) + a * offset for the affine
    RGB -> Y'CbCr map (M, offset): luma per pixel, chroma from the 2x2 means of a and a * rgb,
    so the colour matrix runs on a quarter of the pixels for chroma."""

    device = "cpu"

    def __init__(self, matrix: str = "bt601"):
        self.matrix = matrix
        to_ycc = ycbcr_matrix(matrix)
        self._luma, self._chroma = to_ycc[:1, :3].copy(), to_ycc[1:, :3].copy()
        self._y0, self._c0 = to_ycc[0, 3], to_ycc[1:, 3].copy()

    def __call__(self, i420: np.ndarray, layers: Sequence[Layer]) -> tuple[np.ndarray, np.ndarray]:
        hud = i420.copy()
        y, cb, cr = planes(hud)
        height, width = y.shape
        mask = np.zeros((height, width), np.uint8)
        regions = list(Compositor._regions(np.empty((height, width, 0), np.uint8), layers))
        # groups of layers whose boxes, widened to whole 2x2 chroma blocks, do not overlap: each
        # group's luma and chroma are then blended apart from every other group's and rounded once
        blocks = [(k, _even(dst)) for k, (_, dst) in enumerate(regions)]
        one = np.float32(1.0)
        for box, members in disjoint_groups(blocks):
            cy, cx = slice(box.y1 // 2, box.y2 // 2), slice(box.x1 // 2, box.x2 // 2)
            luma = y[box.y1 : box.y2, box.x1 : box.x2].astype(np.float32)
            chroma = cv2.merge([cb[cy, cx], cr[cy, cx]]).astype(np.float32)
            for k, even in members:
                patch, dst = regions[k]
                a, pm = premultiplied(patch)
                region = luma[dst.y1 - box.y1 : dst.y2 - box.y1, dst.x1 - box.x1 : dst.x2 - box.x1]
                region[:] = cv2.transform(pm, self._luma) + self._y0 * a + region * (one - a)
                # chroma: the patch padded (with alpha 0) to whole blocks, then 2x2 means
                pad = (dst.y1 - even.y1, even.y2 - dst.y2, dst.x1 - even.x1, even.x2 - dst.x2)
                if any(pad):
                    a = cv2.copyMakeBorder(a, *pad, cv2.BORDER_CONSTANT, value=0)
                    pm = cv2.copyMakeBorder(pm, *pad, cv2.BORDER_CONSTANT, value=(0, 0, 0))
                block_a = half(a)[..., None]
                c = chroma[
                    (even.y1 - box.y1) // 2 : (even.y2 - box.y1) // 2, (even.x1 - box.x1) // 2 : (even.x2 - box.x1) // 2
                ]
                c[:] = cv2.transform(half(pm), self._chroma) + self._c0 * block_a + c * (one - block_a)
                mask[dst.y1 : dst.y2, dst.x1 : dst.x2][patch[..., 3] > 0] = 255
            y[box.y1 : box.y2, box.x1 : box.x2] = np.rint(luma).astype(np.uint8)
            chroma = np.rint(chroma).astype(np.uint8)
            cb[cy, cx] = chroma[..., 0]
            cr[cy, cx] = chroma[..., 1]
        return hud, mask


def _even(box: Box) -> Box:
    """The box widened to whole 2x2 blocks (inside an even-sized frame)."""
    return Box(box.x1 & ~1, box.y1 & ~1, box.x2 + (box.x2 & 1), box.y2 + (box.y2 & 1))
