"""Tracing: where each hole pixel was last (or next) visible, chained along the flow, and its colour there."""

from __future__ import annotations

import cv2
import numpy as np

from g2w.remove.propagate.flow import Crop

FAR = np.float32(1e9)  # "never reached" distance


def sweep(crop: Crop, idx: list[np.ndarray], maps: list, order: range) -> list[tuple]:
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


def gather(colors: list[np.ndarray], src: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """(n, 3) float32 colours of n traced pixels, read from their source frames `src` (>= 0)."""
    frame = src.astype(np.int32)
    order = np.argsort(frame.astype(np.int16) if len(colors) < 32768 else frame, kind="stable")  # radix sort
    counts = np.bincount(frame, minlength=len(colors))
    ends = np.cumsum(counts)
    parts = [
        _sample(colors[k], sx[order[ends[k] - counts[k] : ends[k]]], sy[order[ends[k] - counts[k] : ends[k]]])
        for k in np.flatnonzero(counts)
    ]  # one group per source frame, in frame order
    out = np.empty((len(src), 3), np.float32)
    if parts:  # rows scattered as single 12-byte items: twice as fast as numpy's row indexing
        out.view("V12").reshape(-1)[order] = np.concatenate(parts).view("V12").reshape(-1)
    return out


def traced_colors(colors, sweeps, pick, max_steps):
    """Blended colour (n, 3) and reached flags (n,) of the traced pixels `pick` (positions in the
    passes' arrays; None: all of them) from the passes `sweeps` (`sweep`'s per-frame tuples)."""
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
            found = gather(colors, src, sx, sy)
        else:  # unreached pixels get weight 0 and colour 0: adding them changes nothing
            reached = np.flatnonzero(reach)
            w = np.where(reach, 1 / np.maximum(dist, 1), 0).astype(np.float32)
            found = np.zeros((len(src), 3), np.float32)
            if len(reached):
                found[reached] = gather(colors, src[reached], sx[reached], sy[reached])
        color += found * w[:, None]
        weight += w
    got = weight > 0
    np.divide(color, weight[:, None], out=color, where=got[:, None])
    return color, got
