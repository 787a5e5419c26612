"""Flow-guided propagation: fill the UI hole with world pixels seen in other frames.

Screen-space UI stays put while the camera moves, so the world behind a widget is usually
visible a few frames earlier or later. Per chunk of frames:

1. optical flow between neighbouring frames (OpenCV DIS) on a crop around the union of the
   holes, scaled to at most 160 px on its long side; inside each hole the flow is unknown (the
   UI does not move), so it is completed from the flow around it (an affine motion fitted to a
   ring around the hole);
2. a forward pass carries known pixels from frame t-1 into frame t's hole along the flow, and a
   backward pass does the same from t+1; each filled pixel remembers how many steps it travelled;
3. where both passes reach a pixel they are blended with weights 1/steps (the nearer frame in
   time counts more); pixels neither pass reaches within `RimCheck.max_steps` frames (never
   visible nearby) are filled spatially with Telea;
4. each hole is checked on a ring of known pixels around it, traced the same way: where the
   propagation mispredicts that ring (the flow behind the widget was guessed wrong), the whole
   hole gets Telea's fill instead (`RimCheck`).

Only hole pixels change: every pixel outside the hole is the decoded source frame, exactly (the
output video is then H.264-encoded like every other method's). Chunks are independent, so
memory is bounded by `chunk_frames` however long the video.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from g2w.cases.case import Case
from g2w.remove.baselines import even_size
from g2w.remove.masks import case_holes
from g2w.video import VideoWriter, iter_frames
from g2w.video.decode import iter_video_frames
from g2w.video.overlap import BackgroundWriter, prefetch

FAR = np.float32(1e9)  # "never reached" distance
_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool() -> ThreadPoolExecutor:
    """This process's one-thread pool for the backward pass (made per process id: a forked
    child must not inherit a pool whose thread it does not have)."""
    pid = os.getpid()
    if pid not in _POOLS:
        _POOLS[pid] = ThreadPoolExecutor(1, thread_name_prefix="propagate-backward")
    return _POOLS[pid]


def _flow_engine() -> cv2.DISOpticalFlow:
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)
    dis.setFinestScale(0)  # full-resolution patches: chained flow errors add up
    return dis


def _complete(flow: np.ndarray, hole: np.ndarray, ring_px: int = 6, max_points: int = 256) -> np.ndarray:
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
            model, _ = cv2.estimateAffine2D(points, points + flow[ys, xs], ransacReprojThreshold=1.0,
                                            maxIters=200)
        if model is None:
            leftover |= inside * 255
            continue
        iy, ix = np.nonzero(inside)
        pts = np.stack([ix, iy, np.ones_like(ix)], 1).astype(np.float32)
        out[iy, ix] = pts @ model.T.astype(np.float32) - pts[:, :2]
    if leftover.any():
        out = np.dstack([cv2.inpaint(np.ascontiguousarray(out[..., c]), leftover, 3, cv2.INPAINT_TELEA)
                         for c in range(2)])
    return out


class _Crop:
    """The region flow is computed and pixels are propagated in, and its scaled-down twin."""

    def __init__(self, region: np.ndarray, flow_long_side: int):
        ys, xs = np.nonzero(region)
        self.y0, self.y1 = ys.min(), ys.max() + 1
        self.x0, self.x1 = xs.min(), xs.max() + 1
        ch, cw = self.y1 - self.y0, self.x1 - self.x0
        self.scale = min(1.0, flow_long_side / max(ch, cw))
        self.small = (max(8, round(cw * self.scale)), max(8, round(ch * self.scale)))
        self.size = (cw, ch)
        gx, gy = np.meshgrid(np.arange(cw, dtype=np.float32), np.arange(ch, dtype=np.float32))
        self.grid = np.dstack([gx, gy])

    def cut(self, image: np.ndarray) -> np.ndarray:
        return image[self.y0:self.y1, self.x0:self.x1]

    def shrink(self, image: np.ndarray, nearest: bool = False) -> np.ndarray:
        return cv2.resize(image, self.small, interpolation=cv2.INTER_NEAREST if nearest else cv2.INTER_AREA)

    def grow_flow(self, flow: np.ndarray) -> np.ndarray:
        """Small-crop flow -> crop-size sampling map (absolute source coordinates)."""
        big = cv2.resize(flow, self.size, interpolation=cv2.INTER_LINEAR) * np.float32(1 / self.scale)
        return self.grid + big


def _flow_inputs(crop: _Crop, frames: list[np.ndarray], holes: list[np.ndarray]) -> tuple[list, list]:
    """Per frame: the crop's grey image at flow resolution with the UI pre-filled by Telea (a
    static widget would otherwise pin the flow around it to zero), and the hole there, grown a
    little. Radius 1 costs a third of radius 3 and fills as well (within 0.2 dB either way on
    the held-out cases); a push-pull pyramid fill, cheaper still, lost 0.5 dB."""
    small_holes = [cv2.dilate(crop.shrink(crop.cut(h), nearest=True), np.ones((5, 5), np.uint8)) for h in holes]
    gray = [crop.shrink(cv2.cvtColor(crop.cut(f), cv2.COLOR_RGB2GRAY)) for f in frames]
    gray = [cv2.inpaint(g, hole, 1, cv2.INPAINT_TELEA) if hole.any() else g for g, hole in zip(gray, small_holes)]
    return gray, small_holes


def _flows(crop: _Crop, gray: list[np.ndarray], small_holes: list[np.ndarray], holes: list[np.ndarray],
           step: int) -> list[np.ndarray | None]:
    """maps[t]: where each pixel of frame t lies in frame t+step (None where there is no such frame)."""
    dis = _flow_engine()
    maps = []
    for t in range(len(gray)):
        s = t + step
        if not 0 <= s < len(gray) or not holes[t].any():  # no hole in frame t: nothing to trace
            maps.append(None)
            continue
        flow = dis.calc(gray[t], gray[s], None)
        maps.append(crop.grow_flow(_complete(flow, small_holes[t])))
    return maps


def _sweep(crop: _Crop, idx: list[np.ndarray], maps: list, order: range) -> list[tuple]:
    """One propagation pass in `order` over the unknown pixels `idx[t]` (flat row-major indices in
    the crop) of each frame. Per frame: (source frame, source x, source y, steps) for each of
    those pixels, (n,) float32 each; source frame -1 where the pass never reached it. Every other
    crop pixel is known in its own frame: (t, x, y, 0).

    Coordinates are chained through the flow and colours are read once, from the frame where the
    pixel was visible, so a long trip does not blur the fill by resampling it at every step.
    Only the unknown pixels are traced: the previous frame's state is laid out over the crop
    (its known pixels at their identity values) and sampled at the points its flow maps them to,
    which is what remapping the whole crop gave at those pixels, at the cost of the hole's area.
    """
    out = [None] * len(idx)
    grid = crop.grid.reshape(-1, 2)
    ch, cw = crop.size[1], crop.size[0]
    base = np.empty((3, ch * cw), np.float32)  # a frame's state where everything is known: 1, x, y
    base[0], base[1], base[2] = 1, grid[:, 0], grid[:, 1]
    prev = None  # (frame index, its traces)
    for t in order:
        at = idx[t]
        own = _pairs_at(crop.grid, at)
        if prev is None or not len(at):
            src, sx, sy = np.full(len(at), -1, np.float32), own[:, 0].copy(), own[:, 1].copy()
            dist = np.full(len(at), FAR, np.float32)
        else:
            p_t, (p_src, p_x, p_y, p_dist), p_at = prev
            # the previous frame's state over the whole crop: planes (known, x, y), interpolated, and
            # pairs (source frame, steps), sampled nearest (known pixels: t and 0)
            state = base.copy()
            state[0, p_at], state[1, p_at], state[2, p_at] = p_src >= 0, p_x, p_y
            pairs = np.empty((ch * cw, 2), np.float32)
            pairs[:, 0], pairs[:, 1] = p_t, 0
            pairs[p_at, 0], pairs[p_at, 1] = p_src, p_dist
            known, p_x, p_y = (plane.reshape(ch, cw) for plane in state)
            m = _pairs_at(maps[t], at)
            mx, my = _rows(m[:, 0]), _rows(m[:, 1])
            n = len(at)
            # one plane per call: OpenCV interpolates single-channel float images more precisely
            # than multi-channel ones, and this must equal the crop-wide remap it replaces
            n_known = cv2.remap(known, mx, my, cv2.INTER_LINEAR, borderValue=0).ravel()[:n]
            n_x = cv2.remap(p_x, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()[:n]
            n_y = cv2.remap(p_y, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).ravel()[:n]
            # nearest samples copy values, so both nearest planes go in one two-channel call
            near = cv2.remap(pairs.reshape(ch, cw, 2), mx, my, cv2.INTER_NEAREST, borderValue=(-1, float(FAR)))
            near = near.reshape(-1, 2)[:n]
            n_src, n_dist = near[:, 0], near[:, 1]
            ok = (n_known > 0.99) & (n_src >= 0)
            # selecting with np.where costs a fraction of masked assignment over tens of thousands of points
            src, dist = np.where(ok, n_src, np.float32(-1)), np.where(ok, n_dist + 1, np.float32(FAR))
            sx, sy = np.where(ok, n_x, own[:, 0]), np.where(ok, n_y, own[:, 1])
        out[t] = (src, sx, sy, dist)
        prev = (t, out[t], at)
    return out


def _pairs_at(pairs: np.ndarray, at: np.ndarray) -> np.ndarray:
    """(n, 2) rows `at` (flat indices) of an (..., 2) float32 array: each pair read as one 8-byte
    item, which `np.take` gathers about ten times faster than numpy's row indexing."""
    flat = np.ascontiguousarray(pairs, np.float32).reshape(-1).view(np.int64)
    return flat.take(at).view(np.float32).reshape(-1, 2)


ROW = 1024  # points per row when a list of points is laid out for `cv2.remap` (its maps must be under 32767 rows)


def _rows(values: np.ndarray) -> np.ndarray:
    """(n,) float32 -> (ceil(n / ROW), ROW), zero-padded: a list of points as a remap map."""
    n = len(values)
    rows = max(1, -(-n // ROW))
    out = np.zeros(rows * ROW, np.float32)
    out[:n] = values
    return out.reshape(rows, ROW)


def _sample(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear samples of `image` (h, w, c) at float32 points (x, y): (n, c) float32 (edges replicated)."""
    n = len(x)
    out = cv2.remap(image, _rows(x), _rows(y), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1, image.shape[2] if image.ndim == 3 else 1)[:n].astype(np.float32)


def _gather(colors: list[np.ndarray], src: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """(n, 3) float32 colours of n traced pixels, read from their source frames `src` (>= 0)."""
    frame = src.astype(np.int32)
    order = np.argsort(frame.astype(np.int16) if len(colors) < 32768 else frame, kind="stable")  # radix sort
    counts = np.bincount(frame, minlength=len(colors))
    ends = np.cumsum(counts)
    parts = [_sample(colors[k], sx[order[ends[k] - counts[k]:ends[k]]], sy[order[ends[k] - counts[k]:ends[k]]])
             for k in np.flatnonzero(counts)]  # one group per source frame, in frame order
    out = np.empty((len(src), 3), np.float32)
    if parts:  # rows scattered as single 12-byte items: twice as fast as numpy's row indexing
        out.view("V12").reshape(-1)[order] = np.concatenate(parts).view("V12").reshape(-1)
    return out


TELEA_FULL_PX = 4096  # unreached pixels Telea fills at full resolution; more go to a lower one


def _telea(image: np.ndarray, hole: np.ndarray, radius: int) -> np.ndarray:
    """Telea inpainting of `hole` (uint8 0/255) in `image`; a large hole is filled at half or a
    quarter of the resolution and scaled back. Telea's cost grows with the hole's area, and on a
    large hole its result is a smooth diffusion anyway, which a lower resolution barely changes."""
    n = int(np.count_nonzero(hole))
    factor = 1 if n <= TELEA_FULL_PX else 2 if n <= 4 * TELEA_FULL_PX else 4
    h, w = hole.shape
    if factor == 1 or min(h, w) < 4 * factor:
        return cv2.inpaint(image, hole, radius, cv2.INPAINT_TELEA)
    size = (-(-w // factor), -(-h // factor))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    # a small pixel that covers any hole pixel is part of the hole (area averaging mixed UI into it)
    small_hole = np.where(cv2.resize(hole, size, interpolation=cv2.INTER_AREA) > 0, 255, 0).astype(np.uint8)
    filled = cv2.inpaint(small, small_hole, radius, cv2.INPAINT_TELEA)
    return cv2.resize(filled, (w, h), interpolation=cv2.INTER_LINEAR)


class _InOrder:
    """Hands finished frames to `emit` in frame order, from whichever thread finished them."""

    def __init__(self, out: list, emit: Callable[[np.ndarray], None] | None):
        self.out, self.emit = out, emit
        self.done = [False] * len(out)
        self.next = 0
        self.lock = threading.Lock()

    def __call__(self, t: int) -> None:
        if self.emit is None:
            return
        with self.lock:
            self.done[t] = True
            while self.next < len(self.out) and self.done[self.next]:
                self.emit(self.out[self.next])
                self.next += 1


def _on_both(tasks: list[Callable[[], None]]) -> None:
    """Run `tasks` on this thread and the pool's, each thread taking the next task not yet
    started, so neither waits for the other while tasks remain (OpenCV and numpy's large
    operations release the GIL)."""
    lock = threading.Lock()
    todo = iter(tasks)

    def work() -> None:
        while True:
            with lock:
                task = next(todo, None)
            if task is None:
                return
            task()

    other = _pool().submit(work)
    try:
        work()
    finally:
        other.result()


def fill_chunk(frames: list[np.ndarray], holes: list[np.ndarray], margin: int = 32, flow_long_side: int = 160,
               radius: int = 3, check: RimCheck | None = None,
               emit: Callable[[np.ndarray], None] | None = None) -> list[np.ndarray]:
    """Frames (H, W, 3) uint8 with their hole pixels (holes: (H, W) uint8, >0 = fill) filled.

    Each group of nearby holes (the union over the chunk, grown by `margin`) is handled in its
    own crop, so the cost follows the UI's area, not the frame's. `emit`: called with each
    output frame, in order, as soon as it is final (so an encoder starts on the chunk while the
    rest is blended); the frames are returned as well.

    Two threads share the work, step by step over every crop (`_Region`): flow inputs by half
    chunks, the two trace directions, then frame by frame; each thread takes the next piece
    when it is free, so uneven pieces do not leave one of them waiting at every crop.
    """
    n = len(frames)
    out: list = [None] * n
    ready = _InOrder(out, emit)
    found: list[_Region] = []
    if holes:
        union = holes[0].copy()  # OR-ed in place: stacking the chunk's holes first costs four times as much
        for h in holes[1:]:
            np.bitwise_or(union, h, out=union)
        if union.any():
            grown = cv2.dilate((union > 0).astype(np.uint8), np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
            count, regions = cv2.connectedComponents(grown)
            found = [_Region(frames, holes, _Crop(regions == k, flow_long_side), check or RimCheck())
                     for k in range(1, count)]
    halves = (range(n // 2), range(n // 2, n))
    _on_both([functools.partial(r.prepare, part) for r in found for part in halves])
    _on_both([functools.partial(r.trace, step) for r in found for step in (-1, +1)])

    def finish(t: int) -> None:
        """Frame t with every crop's fill, crop after crop as they were found; then it is final."""
        out[t] = frames[t].copy()
        for r in found:
            r.finish(t, out, radius)
        ready(t)

    _on_both([functools.partial(finish, t) for t in range(n)])
    return out


def _traced_colors(colors, sweeps, pick, max_steps):
    """Blended colour (n, 3) and reached flags (n,) of the traced pixels `pick` (positions in the
    passes' arrays; None: all of them) from the passes `sweeps` (`_sweep`'s per-frame tuples)."""
    color = weight = None
    for src, sx, sy, dist in sweeps:
        if pick is not None:
            src, sx, sy, dist = src[pick], sx[pick], sy[pick], dist[pick]
        if color is None:
            color, weight = np.zeros((len(src), 3), np.float32), np.zeros(len(src), np.float32)
        reach = src >= 0
        if max_steps is not None:
            reach &= dist <= max_steps
        if reach.all():
            w = 1 / np.maximum(dist, 1)
            found = _gather(colors, src, sx, sy)
        else:  # unreached pixels get weight 0 and colour 0: adding them changes nothing
            reached = np.flatnonzero(reach)
            w = np.where(reach, 1 / np.maximum(dist, 1), 0).astype(np.float32)
            found = np.zeros((len(src), 3), np.float32)
            if len(reached):
                found[reached] = _gather(colors, src[reached], sx[reached], sy[reached])
        color += found * w[:, None]
        weight += w
    got = weight > 0
    np.divide(color, weight[:, None], out=color, where=got[:, None])
    return color, got


@dataclass(frozen=True)
class RimCheck:
    """When a hole's propagated fill is trusted: the rule that falls back to Telea.

    The flow inside a hole is a guess (an affine motion fitted around it); where the scene's
    motion is not affine (a corridor walked down, parallax between walls and floor) or a trace
    is long, propagated pixels land in the wrong place, which the reference judge scores as a
    major artifact while Telea's smooth fill is at worst a minor one. So each hole is tested on
    pixels whose truth is known: a ring just outside it (from `gap_px` to `ring_px` beyond its
    edge; the gap skips the widget's own soft halo) is traced from other frames exactly like the
    hole, in separate passes that treat the ring as unknown (so the hole's own traces are
    unchanged), and compared with the frame. Per connected hole, when the ring's mean absolute
    error exceeds `tol` (0-255 levels), the whole hole is filled by Telea instead: one rule per
    hole, never a patchwork of both fills. Traces longer than `max_steps` frames count as
    unreached (Telea too). Chosen on the `heldout720` cases and checked on `heldout2` (README,
    "Measured").

    A hole whose reached ring is plain (luma std under `smooth_std`: a wall, a floor, a sky) also
    gets Telea: there Telea's fill is within a few levels of the truth, while any propagated pixel
    that lands a little off shows as an artifact. Chosen on `heldout720` and 6 real Freedoom pairs,
    checked on `heldout2` and cube2 (README, issue 9).
    """

    ring_px: int = 5
    gap_px: int = 2
    tol: float = 12.0
    max_steps: int | None = 15
    smooth_std: float = 10.0


NO_CHECK = RimCheck(ring_px=0, max_steps=None)  # the fill before the check: every reached pixel is trusted


class _Region:
    """One crop's fill over a chunk, in three steps: `prepare` (per frame: flow inputs, grown holes,
    hole pixels), `trace` (per direction: flows and passes) and `finish` (per frame: blend, check
    and write). Each call of a step touches only its own frames or direction, so calls run on
    either fill thread in any order. Only `frames` are read (never `out`, except frame t's own
    crop by its Telea fallback), so frames are finished in any order once every crop is traced."""

    def __init__(self, frames: list[np.ndarray], holes: list[np.ndarray], crop: _Crop, check: RimCheck):
        self.frames, self.holes, self.crop, self.check = frames, holes, crop, check
        self.colors = [crop.cut(f) for f in frames]
        self.cut_holes = [crop.cut(h) for h in holes]
        n = len(frames)
        self.gray, self.small_holes, self.hole_idx = [None] * n, [None] * n, [None] * n
        self.traced, self.inner, self.traced_idx = ([None] * n, [None] * n, [None] * n) if check.ring_px else (None,) * 3
        self.passes: dict[int, tuple] = {}

    def prepare(self, ts: range) -> None:
        """Flow inputs, the ring's grown holes and the pixel indices of the frames `ts`."""
        gray, small = _flow_inputs(self.crop, [self.frames[t] for t in ts], [self.holes[t] for t in ts])
        ring, gap = (cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * px + 1, 2 * px + 1))
                     for px in (self.check.ring_px, self.check.gap_px))
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
        maps = _flows(self.crop, self.gray, self.small_holes, self.cut_holes, step)
        ring = _sweep(self.crop, self.traced_idx, maps, order) if self.traced is not None else None
        self.passes[step] = _sweep(self.crop, self.hole_idx, maps, order), ring

    def finish(self, t: int, out: list[np.ndarray], radius: int) -> None:
        """Blend, check and write frame t's fill into `out[t]` (after both `trace` calls)."""
        colors, check, cut_holes, traced, inner, traced_idx = (self.colors, self.check, self.cut_holes, self.traced,
                                                               self.inner, self.traced_idx)
        (forward, r_fwd), (backward, r_bwd) = self.passes[-1], self.passes[+1]
        cw = self.crop.size[0]
        idx = self.hole_idx[t]
        if not len(idx):
            return
        color, got = _traced_colors(colors, (forward[t], backward[t]), None, check.max_steps)
        ys, xs = np.divmod(idx, cw)
        if check.ring_px:
            ring = np.flatnonzero((traced[t] > 0) & (inner[t] == 0))
            r_color, r_got = _traced_colors(colors, (r_fwd[t], r_bwd[t]), np.searchsorted(traced_idx[t], ring),
                                            check.max_steps)
            got &= ~_untrusted(colors[t], cut_holes[t], ring[r_got], r_color[r_got], ys, xs, check)
        region = self.crop.cut(out[t])  # a view into the output frame
        region[ys[got], xs[got]] = np.clip(color[got] + 0.5, 0, 255).astype(np.uint8)
        if not got.all():  # Telea on the unreached pixels' box only (its cost follows the image size)
            uy, ux = ys[~got], xs[~got]
            pad = 2 * radius + 2
            y0, y1 = max(0, uy.min() - pad), min(region.shape[0], uy.max() + pad + 1)
            x0, x1 = max(0, ux.min() - pad), min(region.shape[1], ux.max() + pad + 1)
            unreached = np.zeros((y1 - y0, x1 - x0), np.uint8)
            unreached[uy - y0, ux - x0] = 255
            box = region[y0:y1, x0:x1]
            box[uy - y0, ux - x0] = _telea(np.ascontiguousarray(box), unreached, radius)[uy - y0, ux - x0]


def _untrusted(frame: np.ndarray, hole: np.ndarray, ring: np.ndarray, r_color: np.ndarray, ys: np.ndarray,
               xs: np.ndarray, check: RimCheck) -> np.ndarray:
    """Flags (n,) of the hole pixels (ys, xs) whose hole's ring is predicted worse than `check.tol`
    or is plainer than `check.smooth_std`; `ring`: the ring pixels the passes reached (flat indices
    in the crop), `r_color`: their colours."""
    cw = hole.shape[1]
    if not len(ring):  # nothing to test with: the hole's own reach decides
        return np.zeros(len(ys), bool)
    ry, rx = np.divmod(ring, cw)
    truth = frame[ry, rx].astype(np.float32)
    err = np.abs(truth - r_color).mean(axis=1)
    luma = truth @ np.float32([0.299, 0.587, 0.114])
    count, comp = cv2.connectedComponents(hole)
    # each ring pixel belongs to the hole it surrounds (the largest label nearby, where rings meet)
    owner = cv2.dilate(comp.astype(np.float32), np.ones((2 * check.ring_px + 3,) * 2, np.uint8))[ry, rx].astype(int)
    num = np.bincount(owner, None, count)
    per = np.maximum(num, 1)
    mean = np.bincount(owner, luma, count) / per
    variance = np.bincount(owner, luma * luma, count) / per - mean * mean
    suspect = (np.bincount(owner, err, count) > check.tol * num) | (variance < check.smooth_std ** 2)
    bad = np.flatnonzero((num > 0) & suspect)
    return np.isin(comp[ys, xs], bad[bad > 0])


class _SharedDecode:
    """One decode of the source for both the segmenter and the fill.

    `frames()` is the segmenter's input (`av.VideoFrame`s, read on its decoding thread); before
    handing on each frame it converts it to full-size RGB and queues that for the fill, which
    takes them in order with `next_rgb()`. The fill reads frame i only after the segmenter gave
    mask i, which needs frame i, so the frame is always queued by then; the queue holds no more
    than the segmenter's lookahead, and a failed decode reaches the caller through the masks.
    """

    def __init__(self, path: str):
        self.path = path
        self._rgb: deque = deque()  # append / popleft are thread-safe

    def frames(self) -> Iterator:
        for _, _, frame in iter_video_frames(self.path):
            self._rgb.append(frame.to_ndarray(format="rgb24"))
            yield frame

    def next_rgb(self) -> np.ndarray:
        if not self._rgb:
            raise RuntimeError(f"{self.path}: a mask arrived before its frame was decoded")
        return self._rgb.popleft()

    def left(self) -> int:
        return len(self._rgb)


def _frames_and_holes(case: Case, mask: str, dilate_px: int, checkpoint: str | None,
                      depth: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(full-size RGB frame, hole) pairs in order, decoded and masked on background threads.
    The segmenter shares the fill's decode (`_SharedDecode`); a gt mask is read beside it."""
    if mask == "segmenter":
        shared = _SharedDecode(case.source)
        for hole in prefetch(case_holes(case, mask, dilate_px, checkpoint, decoded=shared.frames()), depth=depth):
            yield shared.next_rgb(), hole
        if shared.left():
            raise ValueError(f"{case.case_id}: {shared.left()} frames more than masks")
        return
    decoded = prefetch((f.rgb for f in iter_frames(case.source)), depth=depth)
    masks = prefetch(case_holes(case, mask, dilate_px, checkpoint), depth=depth)
    yield from zip(decoded, masks, strict=True)


def propagate(case: Case, out_path: str, mask: str = "segmenter", dilate_px: int = 2, chunk_frames: int = 90,
              crf: int = 18, preset: str = "veryfast", checkpoint: str | None = None, progress=None) -> int:
    """Remove the UI of one case by flow-guided propagation; returns the frames written.

    Decoding, the mask (the segmenter, for `mask="segmenter"`, which shares the decode) and
    encoding each run on their own thread beside the fill (`g2w.video.overlap`), so the next
    chunk is read and the last one encoded while this one is filled.

    The hole is the mask grown by `dilate_px`: 2 px, as for `telea`. A wider rim is more pixels
    guessed: 4 px cost the judge's AAR with either mask (README, issue 9, "The removal mask's
    dilation").
    """
    w, h, fps = even_size(case)
    written = 0
    frames, holes = [], []
    # queues a chunk deep: while a chunk is filled, the next one is decoded (and segmented) and
    # the last one encoded, instead of each stage waiting a chunk's time for the others
    with BackgroundWriter(VideoWriter(out_path, w, h, fps, crf=crf, preset=preset), depth=chunk_frames) as writer:

        def flush():
            nonlocal written
            # each frame goes to the encoder as soon as it is filled (from either fill thread):
            # the encoder starts on the chunk while its fill finishes
            done = fill_chunk(frames, holes, emit=lambda frame: writer.submit(np.ascontiguousarray(frame[:h, :w])))
            for _ in done:
                written += 1
                if progress:
                    progress(written)
            frames.clear()
            holes.clear()

        for frame, hole in _frames_and_holes(case, mask, dilate_px, checkpoint, chunk_frames):
            if hole.shape != frame.shape[:2]:
                raise ValueError(f"{case.case_id}: mask {hole.shape} does not match frame {frame.shape[:2]}")
            frames.append(frame)
            holes.append(hole)
            if progress:  # a chunk is read (and segmented) before it is written: a point to stop at
                progress(written)
            if len(frames) == chunk_frames:
                flush()
        flush()
    return written
