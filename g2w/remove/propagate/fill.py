"""One chunk's fill: per crop, flow inputs, traces in both directions, then per frame blend, rim check and write."""

from __future__ import annotations

import functools
from collections.abc import Callable

import cv2
import numpy as np

from g2w.remove.propagate.fallback import RimCheck, telea, untrusted
from g2w.remove.propagate.flow import Crop, flow_inputs, flows
from g2w.remove.propagate.schedule import InOrder, on_both
from g2w.remove.propagate.trace import sweep, traced_colors


class Region:
    """One crop's fill over a chunk, in three steps: `prepare` (per frame: flow inputs, grown holes,
    hole pixels), `trace` (per direction: flows and passes) and `finish` (per frame: blend, check
    and write). Each call of a step touches only its own frames or direction, so calls run on
    either fill thread in any order. Only `frames` are read (never `out`, except frame t's own
    crop by its Telea fallback), so frames are finished in any order once every crop is traced."""

    def __init__(self, frames: list[np.ndarray], holes: list[np.ndarray], crop: Crop, check: RimCheck):
        self.frames, self.holes, self.crop, self.check = frames, holes, crop, check
        self.colors = [crop.cut(f) for f in frames]
        self.cut_holes = [crop.cut(h) for h in holes]
        n = len(frames)
        self.gray, self.small_holes, self.hole_idx = [None] * n, [None] * n, [None] * n
        self.traced, self.inner, self.traced_idx = (
            ([None] * n, [None] * n, [None] * n) if check.ring_px else (None,) * 3
        )
        self.passes: dict[int, tuple] = {}

    def prepare(self, ts: range) -> None:
        """Flow inputs, the ring's grown holes and the pixel indices of the frames `ts`."""
        gray, small = flow_inputs(self.crop, [self.frames[t] for t in ts], [self.holes[t] for t in ts])
        ring, gap = (
            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * px + 1, 2 * px + 1))
            for px in (self.check.ring_px, self.check.gap_px)
        )
        for k, t in enumerate(ts):
            h = self.cut_holes[t]
            self.gray[t], self.small_holes[t] = gray[k], small[k]
            self.hole_idx[t] = np.flatnonzero(h)  # the hole pixels, row-major in the crop
            if self.traced is not None:
                grows = h.any()
                self.traced[t] = cv2.dilate(h, ring) if grows else h
                self.inner[t] = cv2.dilate(h, gap) if grows and self.check.gap_px else h
                self.traced_idx[t] = np.flatnonzero(self.traced[t])

    def trace(self, step: int) -> None:
        """Flow, hole pass and ring pass of one direction (-1: from earlier frames, +1: from later)."""
        n = len(self.frames)
        order = range(n) if step < 0 else range(n - 1, -1, -1)
        maps = flows(self.crop, self.gray, self.small_holes, self.cut_holes, step)
        ring = sweep(self.crop, self.traced_idx, maps, order) if self.traced is not None else None
        self.passes[step] = sweep(self.crop, self.hole_idx, maps, order), ring

    def finish(self, t: int, out: list[np.ndarray], radius: int, steps: list[np.ndarray] | None = None) -> None:
        """Blend, check and write frame t's fill into `out[t]` (after both `trace` calls); and,
        when `steps` is given, into `steps[t]` how far each hole pixel's colour travelled
        (frames, at most 254; 255: filled by Telea)."""
        colors, check, cut_holes, traced, inner, traced_idx = (
            self.colors,
            self.check,
            self.cut_holes,
            self.traced,
            self.inner,
            self.traced_idx,
        )
        (forward, r_fwd), (backward, r_bwd) = self.passes[-1], self.passes[+1]
        cw = self.crop.size[0]
        idx = self.hole_idx[t]
        if not len(idx):
            return
        color, got = traced_colors(colors, (forward[t], backward[t]), None, check.max_steps)
        ys, xs = np.divmod(idx, cw)
        if check.ring_px:
            ring = np.flatnonzero((traced[t] > 0) & (inner[t] == 0))
            r_color, r_got = traced_colors(
                colors, (r_fwd[t], r_bwd[t]), np.searchsorted(traced_idx[t], ring), check.max_steps
            )
            got &= ~untrusted(colors[t], cut_holes[t], ring[r_got], r_color[r_got], ys, xs, check)
        region = self.crop.cut(out[t])  # a view into the output frame
        region[ys[got], xs[got]] = np.clip(color[got] + 0.5, 0, 255).astype(np.uint8)
        if steps is not None:
            nearest = np.minimum(forward[t][3], backward[t][3])
            self.crop.cut(steps[t])[ys, xs] = np.where(got, np.minimum(nearest, 254), 255).astype(np.uint8)
        if not got.all():  # Telea on the unreached pixels' box only (its cost follows the image size)
            uy, ux = ys[~got], xs[~got]
            pad = 2 * radius + 2
            y0, y1 = max(0, uy.min() - pad), min(region.shape[0], uy.max() + pad + 1)
            x0, x1 = max(0, ux.min() - pad), min(region.shape[1], ux.max() + pad + 1)
            unreached = np.zeros((y1 - y0, x1 - x0), np.uint8)
            unreached[uy - y0, ux - x0] = 255
            box = region[y0:y1, x0:x1]
            box[uy - y0, ux - x0] = telea(np.ascontiguousarray(box), unreached, radius)[uy - y0, ux - x0]


def fill_chunk(
    frames: list[np.ndarray],
    holes: list[np.ndarray],
    margin: int = 32,
    flow_long_side: int = 160,
    radius: int = 3,
    check: RimCheck | None = None,
    emit: Callable[[np.ndarray], None] | None = None,
    steps: list[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Frames (H, W, 3) uint8 with their hole pixels (holes: (H, W) uint8, >0 = fill) filled.

    Each group of nearby holes (the union over the chunk, grown by `margin`) is handled in its
    own crop, so the cost follows the UI's area, not the frame's. `emit`: called with each
    output frame, in order, as soon as it is final (so an encoder starts on the chunk while the
    rest is blended); the frames are returned as well. `steps`: a list to receive, per frame,
    a (H, W) uint8 map of how many frames each hole pixel's colour travelled (255: Telea; 0
    outside the holes), the fill's own confidence.

    Two threads share the work, step by step over every crop (`Region`): flow inputs by half
    chunks, the two trace directions, then frame by frame; each thread takes the next piece
    when it is free, so uneven pieces do not leave one of them waiting at every crop.
    """
    n = len(frames)
    out: list = [None] * n
    ready = InOrder(out, emit)
    found: list[Region] = []
    if holes:
        union = holes[0].copy()  # OR-ed in place: stacking the chunk's holes first costs four times as much
        for h in holes[1:]:
            np.bitwise_or(union, h, out=union)
        if union.any():
            grown = cv2.dilate((union > 0).astype(np.uint8), np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
            count, regions = cv2.connectedComponents(grown)
            found = [
                Region(frames, holes, Crop(regions == k, flow_long_side), check or RimCheck()) for k in range(1, count)
            ]
    halves = (range(n // 2), range(n // 2, n))
    on_both([functools.partial(r.prepare, part) for r in found for part in halves])
    on_both([functools.partial(r.trace, step) for r in found for step in (-1, +1)])

    taken = None
    if steps is not None:
        steps[:] = taken = [np.zeros(h.shape, np.uint8) for h in holes]

    def finish(t: int) -> None:
        """Frame t with every crop's fill, crop after crop as they were found; then it is final."""
        out[t] = frames[t].copy()
        for r in found:
            r.finish(t, out, radius, taken)
        ready(t)

    on_both([functools.partial(finish, t) for t in range(n)])
    return out
