"""UI-contamination screen: how much of a window is covered by static screen-space overlay.

The heuristic ("static-edges") looks for what HUDs are made of: edges that stay put, pixel for
pixel, in front of a scene that moves. Over a window's samples it keeps, per pixel, how often it
is an edge and how much its luma varies. A pixel is overlay evidence when it is an edge in
nearly every sample, its own luma barely changes, and the neighbourhood around it does change.
Evidence is grown into regions (dilate, close, fill holes) so a minimap ring counts as the map
and a line of text as its line; the coverage is the regions' share of the frame.

One kind of world structure passes those tests: a straight line lying along the direction of
motion (the mortar rows of a ground that scrolls sideways) is static in every pixel. Such a
region is nearly all one edge orientation and a thin static line between moving pixels, while
widgets mix orientations (rings, text, icons) or enclose static fills (bars, panels); regions
that are both one-orientation and mostly moving inside are therefore dropped.

Where the whole neighbourhood is still (a frozen or idle shot) nothing counts as evidence:
overlay and scene cannot be told apart there, and the motion checks judge such windows.

The step that uses this asks the registry `UI_SCREENS` by name, so a learned HUD detector can
replace the heuristic without touching the pipeline: it only has to accept frames and return a
coverage.
"""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np

# Calibrated as the README's "Calibration" section records.
CANNY = (60, 150)
EDGE_PERSISTENCE = 0.85  # share of samples in which a pixel must be an edge
STATIC_STD = 16.0  # a static pixel's luma std over the window (blended thin strokes stay below)
MOVING_STD = 6.0  # a neighbourhood whose mean std exceeds this is moving scene
NEIGHBOURHOOD = 0.06  # neighbourhood box side, as a fraction of the frame's short side
GROW = 0.012  # evidence dilation, as a fraction of the short side
CLOSE = 0.05  # gap closing that joins a widget's strokes, as a fraction of the short side
LINE_ORIENTATION = 0.8  # regions whose evidence is mostly one edge orientation ...
LINE_STATIC = 0.3  # ... and less static than this inside are world lines, not UI
STILL_STD = 4.0  # "static inside": luma std of a UI fill, codec noise only
MIN_SAMPLES = 4


Bars = tuple[int, int, int, int]  # letterbox/pillarbox (top, bottom, left, right) to ignore


class UiScreen(Protocol):
    def add(self, gray: np.ndarray) -> None: ...

    def coverage(self, bars: Bars = (0, 0, 0, 0)) -> float: ...


class StaticEdgeScreen:
    def __init__(self):
        self.n = 0
        self._edges: np.ndarray | None = None
        self._sum: np.ndarray | None = None
        self._sumsq: np.ndarray | None = None

    def add(self, gray: np.ndarray) -> None:
        edges = cv2.Canny(gray, *CANNY) > 0
        g = gray.astype(np.float32)
        if self._edges is None:
            self._edges = np.zeros(gray.shape, np.uint16)
            self._sum = np.zeros(gray.shape, np.float32)
            self._sumsq = np.zeros(gray.shape, np.float32)
        self._edges += edges
        self._sum += g
        self._sumsq += g * g
        self.n += 1

    def _std(self) -> np.ndarray:
        mean = self._sum / self.n
        return np.sqrt(np.maximum(self._sumsq / self.n - mean * mean, 0))

    def evidence(self, bars: Bars = (0, 0, 0, 0)) -> np.ndarray:
        """Boolean map of overlay-evidence pixels; the bars' own edges never count."""
        std = self._std()
        side = max(3, int(NEIGHBOURHOOD * min(std.shape)) | 1)
        around = cv2.boxFilter(std, -1, (side, side))
        found = (self._edges >= EDGE_PERSISTENCE * self.n) & (std < STATIC_STD) & (around > MOVING_STD)
        top, bottom, left, right = bars
        h, w = found.shape
        found[: top + 2], found[max(0, h - bottom - 2) :] = False, False
        found[:, : left + 2], found[:, max(0, w - right - 2) :] = False, False
        return found

    def regions(self, bars: Bars = (0, 0, 0, 0)) -> np.ndarray:
        """Evidence grown into filled overlay regions (uint8 0/255)."""
        evidence = self.evidence(bars)
        mask = evidence.astype(np.uint8) * 255
        short = min(mask.shape)
        grow = max(3, int(GROW * short) | 1)
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_RECT, (grow, grow)))
        close = max(3, int(CLOSE * short) | 1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (close, close)))
        return _fill_holes(self._drop_world_lines(mask, evidence))

    def _drop_world_lines(self, mask: np.ndarray, evidence: np.ndarray) -> np.ndarray:
        mean = self._sum / self.n
        gx = np.abs(cv2.Sobel(mean, cv2.CV_32F, 1, 0))
        gy = np.abs(cv2.Sobel(mean, cv2.CV_32F, 0, 1))
        horizontal_edge = gy > gx  # an edge running left-right has its gradient up-down
        static = self._std() < STILL_STD
        count, labels = cv2.connectedComponents(mask, connectivity=8)
        for k in range(1, count):
            region = labels == k
            found = evidence & region
            share = horizontal_edge[found].mean() if found.any() else 0.5
            if max(share, 1 - share) > LINE_ORIENTATION and static[region].mean() < LINE_STATIC:
                mask[region] = 0
        return mask

    def coverage(self, bars: Bars = (0, 0, 0, 0)) -> float:
        if self.n < MIN_SAMPLES:
            return 0.0
        return float((self.regions(bars) > 0).mean())


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """Fill regions fully enclosed by the mask (a ring becomes a disc)."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    outside = padded.copy()
    flood = np.zeros((padded.shape[0] + 2, padded.shape[1] + 2), np.uint8)
    cv2.floodFill(outside, flood, (0, 0), 255)
    holes = cv2.bitwise_not(outside)[1:-1, 1:-1]
    return cv2.bitwise_or(mask, holes)


UI_SCREENS = {"static-edges": StaticEdgeScreen}


def make_ui_screen(name: str) -> UiScreen:
    if name not in UI_SCREENS:
        raise ValueError(f"unknown UI screen {name!r}; known: {sorted(UI_SCREENS)}")
    return UI_SCREENS[name]()
