"""Flow completion: the motion between neighbouring frames of a crop around the UI, known inside its holes.

Flow is computed (OpenCV DIS) on a crop around the union of a chunk's holes, scaled down to at
most `flow_long_side` px; inside each hole the UI does not move, so the flow there is replaced
by an affine motion fitted to a ring around the hole.
"""

from __future__ import annotations

import cv2
import numpy as np


def _flow_engine() -> cv2.DISOpticalFlow:
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)
    dis.setFinestScale(0)  # full-resolution patches: chained flow errors add up
    return dis


def complete_flow(flow: np.ndarray, hole: np.ndarray, ring_px: int = 6, max_points: int = 256) -> np.ndarray:
    """Flow (h, w, 2) with values inside `hole` (uint8 0/255) replaced from the flow around it.

    Per connected hole, an affine motion is fitted robustly (RANSAC) to the flow on a ring just
    outside it and evaluated inside: a pan, zoom or roll carries on behind the widget, and the
    ring's few bad vectors (those the widget's edge disturbed) are outvoted. A hole whose ring
    is too small for a fit is filled by Telea from its border instead.
    """
    if not hole.any():
        return flow
    out = flow.copy()
    count, components = cv2.connectedComponents(hole)
    kernel = np.ones((2 * ring_px + 1, 2 * ring_px + 1), np.uint8)
    leftover = np.zeros_like(hole)
    for k in range(1, count):
        inside = (components == k).astype(np.uint8)
        ys, xs = np.nonzero(cv2.dilate(inside, kernel) & (hole == 0))
        model = None
        if len(xs) >= 12:
            if len(xs) > max_points:  # an evenly spread subset of the ring fits as well, much faster
                keep = np.linspace(0, len(xs) - 1, max_points).astype(int)
                ys, xs = ys[keep], xs[keep]
            points = np.stack([xs, ys], 1).astype(np.float32)
            model, _ = cv2.estimateAffine2D(points, points + flow[ys, xs], ransacReprojThreshold=1.0, maxIters=200)
        if model is None:
            leftover |= inside * 255
            continue
        iy, ix = np.nonzero(inside)
        pts = np.stack([ix, iy, np.ones_like(ix)], 1).astype(np.float32)
        out[iy, ix] = pts @ model.T.astype(np.float32) - pts[:, :2]
    if leftover.any():
        out = np.dstack(
            [cv2.inpaint(np.ascontiguousarray(out[..., c]), leftover, 3, cv2.INPAINT_TELEA) for c in range(2)]
        )
    return out


class Crop:
    """The region flow is computed and pixels are propagated in, and its scaled-down twin."""

    def __init__(self, region: np.ndarray, flow_long_side: int):
        ys, xs = np.nonzero(region)
        self.y0, self.y1 = ys.min(), ys.max() + 1
        self.x0, self.x1 = xs.min(), xs.max() + 1
        ch, cw = self.y1 - self.y0, self.x1 - self.x0
        self.scale = min(1.0, flow_long_side / max(ch, cw))
        self.small = (max(12, round(cw * self.scale)), max(12, round(ch * self.scale)))  # DIS needs 12 px
        self.size = (cw, ch)
        gx, gy = np.meshgrid(np.arange(cw, dtype=np.float32), np.arange(ch, dtype=np.float32))
        self.grid = np.dstack([gx, gy])

    def cut(self, image: np.ndarray) -> np.ndarray:
        return image[self.y0 : self.y1, self.x0 : self.x1]

    def shrink(self, image: np.ndarray, nearest: bool = False) -> np.ndarray:
        return cv2.resize(image, self.small, interpolation=cv2.INTER_NEAREST if nearest else cv2.INTER_AREA)

    def grow_flow(self, flow: np.ndarray) -> np.ndarray:
        """Small-crop flow -> crop-size sampling map (absolute source coordinates)."""
        big = cv2.resize(flow, self.size, interpolation=cv2.INTER_LINEAR) * np.float32(1 / self.scale)
        return self.grid + big


def flow_inputs(crop: Crop, frames: list[np.ndarray], holes: list[np.ndarray]) -> tuple[list, list]:
    """Per frame: the crop's grey image at flow resolution with the UI pre-filled by Telea (a
    static widget would otherwise pin the flow around it to zero), and the hole there, grown a
    little. Radius 1 costs a third of radius 3 and fills as well (within 0.2 dB either way on
    the held-out cases); a push-pull pyramid fill, cheaper still, lost 0.5 dB."""
    small_holes = [cv2.dilate(crop.shrink(crop.cut(h), nearest=True), np.ones((5, 5), np.uint8)) for h in holes]
    gray = [crop.shrink(cv2.cvtColor(crop.cut(f), cv2.COLOR_RGB2GRAY)) for f in frames]
    gray = [cv2.inpaint(g, hole, 1, cv2.INPAINT_TELEA) if hole.any() else g for g, hole in zip(gray, small_holes)]
    return gray, small_holes


def flows(
    crop: Crop, gray: list[np.ndarray], small_holes: list[np.ndarray], holes: list[np.ndarray], step: int
) -> list[np.ndarray | None]:
    """maps[t]: where each pixel of frame t lies in frame t+step (None where there is no such frame)."""
    dis = _flow_engine()
    maps = []
    for t in range(len(gray)):
        s = t + step
        if not 0 <= s < len(gray) or not holes[t].any():  # no hole in frame t: nothing to trace
            maps.append(None)
            continue
        flow = dis.calc(gray[t], gray[s], None)
        maps.append(crop.grow_flow(complete_flow(flow, small_holes[t])))
    return maps
