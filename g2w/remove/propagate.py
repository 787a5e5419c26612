"""Flow-guided propagation: fill the UI hole with world pixels seen in other frames.

Screen-space UI stays put while the camera moves, so the world behind a widget is usually
visible a few frames earlier or later. Per chunk of frames:

1. optical flow between neighbouring frames (OpenCV DIS) on a crop around the union of the
   holes, scaled to at most 160 px on its long side; inside each hole the flow is unknown (the
   UI does not move), so it is completed from the flow around it (an affine motion fitted to a
   ring around the hole);
2. a forward pass carries known pixels from frame t-1 into frame t's hole along the flow, and a
   backward pass does the same from t+1; each filled pixel remembers how many steps it travelled.
   Only hole pixels are traced (their positions are chained through the flow, sampled at the
   hole pixels alone), so the cost follows the UI's area, not the crop's;
3. where both passes reach a pixel they are blended with weights 1/steps (the nearer frame in
   time counts more); pixels neither pass reaches (never visible in the chunk) are filled
   spatially with Telea.

Only hole pixels change: every pixel outside the hole is the decoded source frame, exactly (the
output video is then H.264-encoded like every other method's). Chunks are independent, so
memory is bounded by `chunk_frames` however long the video.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.evaluate.cases import Case
from g2w.remove.baselines import even_size
from g2w.remove.masks import case_holes
from g2w.video import VideoWriter, iter_frames

FAR = np.float32(1e9)  # "never reached" distance


def _flow_engine() -> cv2.DISOpticalFlow:
    dis = cv2.DISOpticalFlow_create(cv2.DISOPTICAL_FLOW_PRESET_ULTRAFAST)
    dis.setFinestScale(0)  # patches at the (already reduced) crop's own scale: chained errors add up
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

    def cut(self, image: np.ndarray) -> np.ndarray:
        return image[self.y0:self.y1, self.x0:self.x1]

    def shrink(self, image: np.ndarray, nearest: bool = False) -> np.ndarray:
        return cv2.resize(image, self.small, interpolation=cv2.INTER_NEAREST if nearest else cv2.INTER_AREA)


class _Hole:
    """The hole pixels of one frame inside a crop: row-major linear indices and coordinates."""

    def __init__(self, hole: np.ndarray):
        self.mask = hole  # (h, w) bool
        self.width = hole.shape[1]
        self.index = np.flatnonzero(hole)  # sorted
        self.y, self.x = np.divmod(self.index, self.width)
        self.xf, self.yf = self.x.astype(np.float32), self.y.astype(np.float32)

    def __len__(self) -> int:
        return len(self.index)

    def find(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Position in this hole of each integer pixel (x, y), or -1 where it is not a hole pixel."""
        lin = y.astype(np.int64) * self.width + x
        pos = np.searchsorted(self.index, lin)
        pos = np.minimum(pos, max(len(self.index) - 1, 0))
        hit = (self.index[pos] == lin) if len(self.index) else np.zeros(len(lin), bool)
        return np.where(hit, pos, -1)


def _sample(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear samples of `image` (h, w, c) at float32 points (x, y): (n, c) float32 (edges replicated).

    The points are laid out as rows of 1024 for `cv2.remap` (its maps must be under 32767 rows)."""
    n, row = len(x), 1024
    rows = -(-n // row)
    mx, my = np.zeros(rows * row, np.float32), np.zeros(rows * row, np.float32)
    mx[:n], my[:n] = x, y
    out = cv2.remap(image, mx.reshape(rows, row), my.reshape(rows, row), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(rows * row, -1)[:n].astype(np.float32)


def _destinations(crop: _Crop, hole: _Hole, small_flow: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each hole pixel lies in the other frame: the completed small-crop flow sampled
    bilinearly at the pixel, scaled back to crop pixels."""
    fx, fy = float(crop.small[0] / crop.size[0]), float(crop.small[1] / crop.size[1])
    d = _sample(small_flow, (hole.xf + 0.5) * fx - 0.5, (hole.yf + 0.5) * fy - 0.5)
    return (hole.xf + d[:, 0] / fx).astype(np.float32), (hole.yf + d[:, 1] / fy).astype(np.float32)


def _flows(crop: _Crop, frames: list[np.ndarray], holes: list[_Hole], small_holes: list[np.ndarray],
           gray: list[np.ndarray], step: int) -> list[tuple | None]:
    """dest[t]: (x, y) in frame t+step of each hole pixel of frame t (None where there is no
    such frame or no hole)."""
    dis = _flow_engine()
    out = []
    for t in range(len(frames)):
        s = t + step
        if not 0 <= s < len(frames) or not len(holes[t]):
            out.append(None)
            continue
        flow = dis.calc(gray[t], gray[s], None)
        out.append(_destinations(crop, holes[t], _complete(flow, small_holes[t])))
    return out


def _sweep(crop: _Crop, holes: list[_Hole], dest: list, order: range, step: int) -> list[tuple | None]:
    """One propagation pass in `order`. Per frame, for each hole pixel: (source frame, source x,
    source y, steps); source frame -1 where the pass never reached it.

    Only hole pixels are traced: a pixel's destination in the previous frame of the pass is
    either outside that frame's hole (visible there: read it from that frame) or inside it
    (take over that pixel's own trace, offset by the sub-pixel remainder). Coordinates are
    chained and colours read once, from the frame where the pixel was visible, so a long trip
    does not blur the fill by resampling it at every step.
    """
    out: list[tuple | None] = [None] * len(holes)
    w, h = crop.size
    for t in order:
        hole = holes[t]
        if not len(hole):
            continue
        p = t + step  # the frame this pass comes from
        n = len(hole)
        src = np.full(n, -1, np.int32)
        sx, sy, dist = np.zeros(n, np.float32), np.zeros(n, np.float32), np.full(n, FAR, np.float32)
        if dest[t] is not None:
            x, y = dest[t]
            ix, iy = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
            inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
            ix, iy = np.clip(ix, 0, w - 1), np.clip(iy, 0, h - 1)
            mask = holes[p].mask
            in_hole = mask[iy, ix]
            visible = inside & ~in_hole  # outside the previous frame's hole: seen there
            # a bilinear read next to that hole would blend UI in: read the nearest pixel there
            x0 = np.clip(np.floor(x).astype(np.int64), 0, max(w - 2, 0))
            y0 = np.clip(np.floor(y).astype(np.int64), 0, max(h - 2, 0))
            x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
            rim = visible & (mask[y0, x0] | mask[y0, x1] | mask[y1, x0] | mask[y1, x1])
            x, y = np.where(rim, ix, x).astype(np.float32), np.where(rim, iy, y).astype(np.float32)
            src[visible], sx[visible], sy[visible], dist[visible] = p, x[visible], y[visible], 1
            k = np.full(n, -1, np.int64)
            chained = inside & in_hole
            k[chained] = holes[p].find(ix[chained], iy[chained])
            if chained.any() and out[p] is not None:
                p_src, p_x, p_y, p_dist = out[p]
                kk = k[chained]
                ok = p_src[kk] >= 0
                sel = np.flatnonzero(chained)[ok]
                kk = kk[ok]
                src[sel] = p_src[kk]
                sx[sel] = p_x[kk] + (x[sel] - ix[sel])
                sy[sel] = p_y[kk] + (y[sel] - iy[sel])
                dist[sel] = p_dist[kk] + 1
        out[t] = (src, sx, sy, dist)
    return out


def _gather(colors: list[np.ndarray], traced: tuple, sel: np.ndarray) -> np.ndarray:
    """(len(sel), 3) float32 colours of the traced pixels `sel`, read from their source frames."""
    src, sx, sy = traced[0][sel], traced[1][sel], traced[2][sel]
    out = np.zeros((len(src), 3), np.float32)
    order = np.argsort(src, kind="stable")  # one group per source frame, found in one pass
    frames, starts = np.unique(src[order], return_index=True)
    for k, a, b in zip(frames, starts, [*starts[1:], len(order)]):
        pick = order[a:b]
        out[pick] = _sample(colors[int(k)], sx[pick], sy[pick])
    return out


def fill_chunk(frames: list[np.ndarray], holes: list[np.ndarray], margin: int = 32, flow_long_side: int = 160,
               radius: int = 3) -> list[np.ndarray]:
    """Frames (H, W, 3) uint8 with their hole pixels (holes: (H, W) uint8, >0 = fill) filled.

    Each group of nearby holes (the union over the chunk, grown by `margin`) is handled in its
    own crop, so the cost follows the UI's area, not the frame's.
    """
    out = [f.copy() for f in frames]
    if not holes:
        return out
    union = np.bitwise_or.reduce(np.stack(holes), axis=0)
    if not union.any():
        return out
    grown = cv2.dilate((union > 0).astype(np.uint8), np.ones((2 * margin + 1, 2 * margin + 1), np.uint8))
    count, regions = cv2.connectedComponents(grown)
    for k in range(1, count):
        _fill_region(frames, holes, _Crop(regions == k, flow_long_side), out, radius)
    return out


def _fill_region(frames: list[np.ndarray], holes: list[np.ndarray], crop: _Crop, out: list[np.ndarray],
                 radius: int) -> None:
    """Fill the hole pixels inside one crop of every frame, writing into `out`."""
    colors = [crop.cut(f) for f in frames]
    cut_holes = [crop.cut(h) > 0 for h in holes]
    traced_holes = [_Hole(h) for h in cut_holes]
    n = len(frames)
    small_holes = [cv2.dilate(crop.shrink(h.view(np.uint8), nearest=True), np.ones((5, 5), np.uint8))
                   for h in cut_holes]
    # the UI is pre-filled in the flow images: a static widget would otherwise pin the flow
    # around it to zero
    gray = [crop.shrink(cv2.cvtColor(c, cv2.COLOR_RGB2GRAY)) for c in colors]
    gray = [cv2.inpaint(g, sh, 3, cv2.INPAINT_TELEA) if sh.any() else g for g, sh in zip(gray, small_holes)]
    forward = _sweep(crop, traced_holes, _flows(crop, frames, traced_holes, small_holes, gray, -1), range(n), -1)
    backward = _sweep(crop, traced_holes, _flows(crop, frames, traced_holes, small_holes, gray, +1),
                      range(n - 1, -1, -1), +1)
    for t in range(n):
        hole = traced_holes[t]
        if not len(hole):
            continue
        color, weight = np.zeros((len(hole), 3), np.float32), np.zeros(len(hole), np.float32)
        for traced in (forward[t], backward[t]):
            sel = np.flatnonzero(traced[0] >= 0)
            if len(sel):
                wt = 1 / np.maximum(traced[3][sel], 1)
                color[sel] += _gather(colors, traced, sel) * wt[:, None]
                weight[sel] += wt
        got = weight > 0
        values = np.zeros((len(hole), 3), np.uint8)
        values[got] = np.clip(color[got] / weight[got, None] + 0.5, 0, 255).astype(np.uint8)
        if not got.all():  # never visible in the chunk: Telea, on the unreached pixels' box only
            ys, xs = hole.y[~got], hole.x[~got]
            pad = 2 * radius + 2
            y0, y1 = max(0, ys.min() - pad), min(crop.size[1], ys.max() + pad + 1)
            x0, x1 = max(0, xs.min() - pad), min(crop.size[0], xs.max() + pad + 1)
            box = colors[t][y0:y1, x0:x1].copy()
            inbox = (hole.y >= y0) & (hole.y < y1) & (hole.x >= x0) & (hole.x < x1) & got
            box[hole.y[inbox] - y0, hole.x[inbox] - x0] = values[inbox]
            unreached = np.zeros(box.shape[:2], np.uint8)
            unreached[ys - y0, xs - x0] = 255
            box = cv2.inpaint(box, unreached, radius, cv2.INPAINT_TELEA)
            values[~got] = box[ys - y0, xs - x0]
        region = crop.cut(out[t])  # a view into the output frame
        region[hole.y, hole.x] = values


def propagate(case: Case, out_path: str, mask: str = "segmenter", dilate_px: int = 4, chunk_frames: int = 90,
              crf: int = 18, preset: str = "veryfast", checkpoint: str | None = None, progress=None) -> int:
    """Remove the UI of one case by flow-guided propagation; returns the frames written."""
    w, h, fps = even_size(case)
    written = 0
    with VideoWriter(out_path, w, h, fps, crf=crf, preset=preset) as writer:
        frames, holes = [], []

        def flush():
            nonlocal written
            for frame in fill_chunk(frames, holes):
                writer.write(np.ascontiguousarray(frame[:h, :w]))
                written += 1
                if progress:
                    progress(written)
            frames.clear()
            holes.clear()

        for frame, hole in zip(iter_frames(case.source), case_holes(case, mask, dilate_px, checkpoint), strict=True):
            if hole.shape != frame.rgb.shape[:2]:
                raise ValueError(f"{case.case_id}: mask {hole.shape} does not match frame {frame.rgb.shape[:2]}")
            frames.append(frame.rgb)
            holes.append(hole)
            if progress:  # a chunk is read (and segmented) before it is written: a point to stop at
                progress(written)
            if len(frames) == chunk_frames:
                flush()
        flush()
    return written
