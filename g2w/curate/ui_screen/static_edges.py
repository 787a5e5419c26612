"""The "static-edges" UI screen: a heuristic over static screen-space overlay.

It looks for what HUDs are made of: edges that stay put, pixel for
pixel, in front of a scene that moves. It keeps, per pixel, how often it is an edge and how much
its luma varies, at two time scales:
- within the window: an edge in nearly every sample, whose own luma barely changes, while the
  neighbourhood around it changes;
- across the whole source: a static edge of the window whose luma never changed in the entire
  video while its neighbourhood did at some point. This finds a minimap that sits over a still
  sky for five seconds; a world object that only stood still during this window (an idle shot)
  moved elsewhere in the source and does not count.
Evidence is grown into regions (dilate, close, fill holes) so a minimap ring counts as the map
and a line of text as its line; the coverage is the regions' share of the frame.

One kind of world structure passes those tests: a straight line lying along the direction of
motion (the mortar rows of a ground that scrolls sideways) is static in every pixel. Such a
region is nearly all one edge orientation and a thin static line between moving pixels, while
widgets mix orientations (rings, text, icons) or enclose static fills (bars, panels); regions
that are both one-orientation and mostly moving inside are therefore dropped.

Memory: whole-source sums (a few frames' worth) plus, per window, two bit-packed maps (65 kB at
the 540p analysis size): an hour of video holds under 100 MB until its source is finished.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.curate.ui_screen import Bars

# Calibrated on real and procedural footage (the record: docs/experiments/2026-12-05-readme-record.md).
CANNY = (60, 150)
EDGE_PERSISTENCE = 0.85  # share of a window's samples in which a pixel must be an edge
STATIC_STD = 16.0  # a static pixel's luma std (blended thin strokes stay below)
MOVING_STD = 6.0  # a neighbourhood whose mean std exceeds this is moving scene
NEIGHBOURHOOD = 0.06  # neighbourhood box side, as a fraction of the frame's short side
GROW = 0.012  # evidence dilation, as a fraction of the short side
CLOSE = 0.05  # gap closing that joins a widget's strokes, as a fraction of the short side
LINE_ORIENTATION = 0.8  # regions whose evidence is mostly one edge orientation ...
LINE_STATIC = 0.3  # ... and less static than this inside are world lines, not UI
STILL_STD = 4.0  # "static inside": luma std of a UI fill, codec noise only
LASTING_STD = 6.0  # a pixel unchanged over a whole source (stricter: smooth scenery drifts slowly)
MIN_SAMPLES = 4


class _Stats:
    """Running per-pixel edge counts and luma moments (float64: an hour of samples would lose
    precision in float32)."""

    def __init__(self, shape):
        self.n = 0
        self.edges = np.zeros(shape, np.uint32)
        self.sum = np.zeros(shape, np.float64)
        self.sumsq = np.zeros(shape, np.float64)

    def add(self, gray: np.ndarray, edges: np.ndarray) -> None:
        np.add(self.edges, edges, out=self.edges, casting="unsafe")
        cv2.accumulate(gray, self.sum)
        cv2.accumulateSquare(gray, self.sumsq)
        self.n += 1

    def merge(self, other: _Stats) -> None:
        self.edges += other.edges
        self.sum += other.sum
        self.sumsq += other.sumsq
        self.n += other.n

    def mean(self) -> np.ndarray:
        return (self.sum / self.n).astype(np.float32)

    def std(self) -> np.ndarray:
        mean = self.sum / self.n
        return np.sqrt(np.maximum(self.sumsq / self.n - mean * mean, 0)).astype(np.float32)


def _moving_around(std: np.ndarray) -> np.ndarray:
    side = max(3, int(NEIGHBOURHOOD * min(std.shape)) | 1)
    return cv2.boxFilter(std, -1, (side, side)) > MOVING_STD


def _outside_bars(shape, bars: Bars) -> np.ndarray:
    keep = np.ones(shape, bool)
    top, bottom, left, right = bars
    h, w = shape
    keep[: top + 2], keep[max(0, h - bottom - 2) :] = False, False
    keep[:, : left + 2], keep[:, max(0, w - right - 2) :] = False, False
    return keep


def grow_regions(evidence: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """Evidence grown into overlay regions (uint8 0/255), world lines dropped, holes not filled."""
    mask = evidence.astype(np.uint8) * 255
    short = min(mask.shape)
    grow = max(3, int(GROW * short) | 1)
    mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (grow, grow)))
    close = max(3, int(CLOSE * short) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (close, close)))
    gx = np.abs(cv2.Sobel(mean, cv2.CV_32F, 1, 0))
    gy = np.abs(cv2.Sobel(mean, cv2.CV_32F, 0, 1))
    horizontal_edge = gy > gx  # an edge running left-right has its gradient up-down
    still = std < STILL_STD
    count, labels = cv2.connectedComponents(mask, connectivity=8)
    for k in range(1, count):
        region = labels == k
        found = evidence & region
        share = horizontal_edge[found].mean() if found.any() else 0.5
        if max(share, 1 - share) > LINE_ORIENTATION and still[region].mean() < LINE_STATIC:
            mask[region] = 0
    return mask


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """Fill regions fully enclosed by the mask (a ring becomes a disc)."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    flood = np.zeros((padded.shape[0] + 2, padded.shape[1] + 2), np.uint8)
    cv2.floodFill(padded, flood, (0, 0), 255)
    return cv2.bitwise_or(mask, cv2.bitwise_not(padded)[1:-1, 1:-1])


class StaticEdgeScreen:
    def __init__(self):
        self._source: _Stats | None = None
        self._window: _Stats | None = None
        self._windows: list[tuple] = []  # per window: packed regions, packed static edges, bars, samples
        self._shape = None

    def start_window(self) -> None:
        self._window = None

    def add(self, gray: np.ndarray, rgb: np.ndarray | None = None) -> None:
        if self._source is None:
            self._shape = gray.shape
            self._source = _Stats(gray.shape)
        if self._window is None:
            self._window = _Stats(gray.shape)
        self._window.add(gray, cv2.Canny(gray, *CANNY) // 255)

    def end_window(self, bars: Bars = (0, 0, 0, 0)) -> None:
        w = self._window
        if w is not None:
            self._source.merge(w)  # the source's moments are the sum of its windows'
        if w is None or w.n < MIN_SAMPLES:
            self._windows.append((None, None, bars, 0 if w is None else w.n))
            return
        std = w.std()
        static_edges = (w.edges >= EDGE_PERSISTENCE * w.n) & (std < STATIC_STD) & _outside_bars(std.shape, bars)
        regions = grow_regions(static_edges & _moving_around(std), w.mean(), std) > 0
        self._windows.append((np.packbits(regions), np.packbits(static_edges), bars, w.n))
        self._window = None

    def evidence_maps(self) -> list[np.ndarray | None]:
        """Per window, the filled overlay regions (uint8 0/255), or None for too few samples."""
        return list(self._maps())

    def _maps(self):
        """`evidence_maps` one at a time: an hour of 540p windows would hold 370 MB of maps at once."""
        if self._source is None:
            yield from [None] * len(self._windows)
            return
        size = int(np.prod(self._shape))
        std, mean = self._source.std(), self._source.mean()
        lasting = (std < LASTING_STD) & _moving_around(std)  # never changed, while around it did
        for packed_regions, packed_static, _, _ in self._windows:
            if packed_regions is None:
                yield None
                continue
            regions = np.unpackbits(packed_regions, count=size).reshape(self._shape).astype(bool)
            static_edges = np.unpackbits(packed_static, count=size).reshape(self._shape).astype(bool)
            regions |= grow_regions(static_edges & lasting, mean, std) > 0
            yield fill_holes(regions.astype(np.uint8) * 255)

    def coverages(self) -> list[float]:
        return [0.0 if m is None else float((m > 0).mean()) for m in self._maps()]
