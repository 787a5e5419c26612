"""Shot cuts told apart from camera motion, from tiny thumbnails of every decoded frame.

Each frame is reduced to a 64x36 luma thumbnail read straight from the decoder's Y plane, plus
a luma and chroma histogram. Consecutive frames give two cues that camera motion leaves alone:
- the *motion-compensated* difference: the thumbnails, normalized to zero mean and unit contrast
  (so fades do not count), compared after undoing their global phase-correlation shift;
- the *histogram* change (total variation of the luma and chroma histograms), which a turn
  through one place barely moves and a switch to another clip does.
Neither is trusted on its own size: a fast first-person turn moves every frame a lot, for many
frames in a row, while a cut moves one frame. So a frame's difference is compared with the
mean of its neighbours on both sides (as PySceneDetect's adaptive detector does): a cut is a
spike against that local average, large enough in absolute terms, and either confirmed by the
histogram or a much sharper spike (two looks of one place, e.g. a replay restarting, keep
their histogram). A third, structural path needs no colour change: a step whose two frames
share no layout any shift explains (a motion-compensated difference near that of unrelated
frames) and that stands out against each side on its own. Two maps of one game that look alike
change the histogram little, but their thumbnails decorrelate; a fast turn that phase
correlation loses also decorrelates, but for several frames in a row, so it does not stand out
against the side where the turn goes on. A step where either frame is nearly flat (the black end of a fade) is never
a cut: there the normalized picture is mostly quantization, and such steps are left out of the
neighbours' means too. A cut *through* a nearly flat frame (a cut onto black, a dip to black
between two shots) is still found: a short flat run is bridged, the last frame before it compared
with the first after it by the same cues, and that comparison stands in for the step out of the
run. A fade out and back into one place bridges to the same picture, so it does not cut.

Deciding needs frames after the cut, so the signals of a whole source are recorded (a few
numbers per frame) and decided at its end. Windows that straddle a cut are rejected
(`scene_cut`); a cut on a window's first frame belongs to neither window.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import av
import cv2
import numpy as np

THUMB = (64, 36)
_MAX_SHIFT = (16, 9)  # thumbnail pixels (a quarter of the frame): larger "shifts" are not motion
_MIN_SHIFT_RESPONSE = 0.05
FLAT_CONTRAST = 4.0  # luma std (0-255) below which a thumbnail is too flat to judge
_PLANAR_YUV = {"yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p"}
_LUMA_BINS, _CHROMA_BINS = 32, 16
MAX_BRIDGE_S = 1.0  # a flat run at most this long is bridged (compared across); longer ones end a shot


@dataclass(frozen=True)
class CutThresholds:
    """Chosen on real footage as the README's "Calibration" section records."""

    floor: float = 0.3  # motion-compensated difference below which nothing is a cut
    ratio: float = 2.5  # ... that many times the neighbours' mean, with the histogram agreeing
    histogram: float = 0.15  # histogram change (0-1) that confirms a content change
    ratio_alone: float = 8.0  # a spike this sharp is a cut without the histogram
    neighbours: int = 4  # frames on each side the spike is compared with
    decorrelated: float = 0.87  # a difference this large: the frames share nothing a shift explains
    ratio_decorrelated: float = 1.85  # ... and that many times the mean of EACH side: a cut alone


@dataclass(frozen=True)
class Thumb:
    pixels: np.ndarray  # (36, 64) float32, zero mean, unit std
    contrast: float  # luma std before normalizing
    histogram: np.ndarray  # luma then U then V bins, each channel summing to 1


def _strided(plane, width: int, height: int) -> np.ndarray:
    """A view of one 8-bit plane, strided down to about width x height."""
    a = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, : plane.width]
    return a[:: max(1, a.shape[0] // height), :: max(1, a.shape[1] // width)]


def _histogram(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    parts = [np.bincount(y.ravel() >> 3, minlength=_LUMA_BINS) / y.size]
    parts += [np.bincount(c.ravel() >> 4, minlength=_CHROMA_BINS) / c.size for c in (u, v)]
    return np.concatenate(parts).astype(np.float32)


def luma_thumb(frame: av.VideoFrame) -> Thumb:
    """The frame's normalized 64x36 luma thumbnail and its colour histogram, read from the
    planes without a colour conversion when the decoder gives planar 8-bit YUV."""
    if frame.format.name not in _PLANAR_YUV:  # nv12, gray, 10-bit, RGB: swscale makes planar 8-bit
        frame = frame.reformat(width=2 * THUMB[0], height=2 * THUMB[1], format="yuv420p")
    y = _strided(frame.planes[0], 2 * THUMB[0], 2 * THUMB[1])  # range does not matter: normalized below
    u, v = (_strided(p, THUMB[0], THUMB[1]) for p in frame.planes[1:3])
    small = cv2.resize(y, THUMB, interpolation=cv2.INTER_AREA)
    histogram = _histogram(small, u, v)
    small = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)
    mean, std = cv2.meanStdDev(small)
    contrast = float(std[0, 0])
    return Thumb((small - float(mean[0, 0])) / max(contrast, 1e-3), contrast, histogram)


def motion_compensated_difference(prev: np.ndarray, cur: np.ndarray) -> tuple[float, tuple | None]:
    """(mean |cur - prev| after undoing the global shift between them, that shift as a fraction
    of the thumbnail width or None when phase correlation finds no reliable one). Undoing the
    shift keeps a pan or a camera shake from looking like new content."""
    raw = cv2.mean(cv2.absdiff(cur, prev))[0]
    (dx, dy), response = cv2.phaseCorrelate(prev, cur)
    if response < _MIN_SHIFT_RESPONSE or abs(dx) > _MAX_SHIFT[0] or abs(dy) > _MAX_SHIFT[1]:
        return raw, None
    moved = cv2.warpAffine(prev, np.float32([[1, 0, dx], [0, 1, dy]]), (prev.shape[1], prev.shape[0]),
                           borderMode=cv2.BORDER_REPLICATE)
    mx, my = max(1, int(np.ceil(abs(dx)))), max(1, int(np.ceil(abs(dy))))
    inner = cv2.absdiff(cur, moved)[my:-my, mx:-mx]  # the strip the shift uncovered is unknown
    return min(raw, cv2.mean(inner)[0]), (dx / THUMB[0], dy / THUMB[0])


def histogram_change(a: np.ndarray, b: np.ndarray) -> float:
    """Total variation between two frames' histograms, averaged over luma, U and V (0-1)."""
    return float(np.abs(a - b).sum() / 6)


class FrameSignals:
    """Per-frame cues of one source, in decode order: feed every frame's thumbnail to `add`.

    Frame i's cues compare it with frame i - 1 (frame 0 gets zeros). Shifts are NaN where
    phase correlation found none; `shift` holds (dx, dy) pairs flattened. `bridges` maps the
    first solid frame after a flat run of at most MAX_BRIDGE_S to its (difference, histogram
    change) against the last solid frame before the run (rare, so a dict, not two more arrays). Typed arrays keep an
    hour of 60 fps video at about 2 MB of cues (Python lists of floats took about 5x that)."""

    def __init__(self):
        self.times = array("d")
        self.difference = array("d")
        self.histogram = array("d")
        self.flat = array("b")
        self.shift = array("d")  # dx0, dy0, dx1, dy1, ...
        self.bridges: dict[int, tuple[float, float]] = {}
        self._prev: Thumb | None = None
        self._solid: tuple[float, Thumb] | None = None  # the last frame that was not flat, and its time

    def add(self, t: float, thumb: Thumb) -> None:
        prev, self._prev = self._prev, thumb
        self.times.append(t)
        self._bridge(t, prev, thumb)
        if prev is None:
            self.difference.append(0.0), self.histogram.append(0.0), self.flat.append(True)
            self.shift.extend((np.nan, np.nan))
            return
        diff, shift = motion_compensated_difference(prev.pixels, thumb.pixels)
        self.difference.append(diff)
        self.histogram.append(histogram_change(prev.histogram, thumb.histogram))
        self.flat.append(min(prev.contrast, thumb.contrast) < FLAT_CONTRAST)
        self.shift.extend(shift if shift is not None else (np.nan, np.nan))

    def _bridge(self, t: float, prev: Thumb | None, thumb: Thumb) -> None:
        """Compare across a short flat run once it ends: its last solid frame with this one."""
        solid = thumb.contrast >= FLAT_CONTRAST
        if (solid and prev is not None and prev.contrast < FLAT_CONTRAST and self._solid is not None
                and t - self._solid[0] <= MAX_BRIDGE_S + 1e-6):
            self.bridges[len(self.times) - 1] = (
                motion_compensated_difference(self._solid[1].pixels, thumb.pixels)[0],
                histogram_change(self._solid[1].histogram, thumb.histogram))
        if solid:
            self._solid = (t, thumb)

    def bridge_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(difference, histogram change) across each bridged flat run, on the frame after it; NaN elsewhere."""
        difference, histogram = np.full(len(self.times), np.nan), np.full(len(self.times), np.nan)
        for i, (d, h) in self.bridges.items():
            difference[i], histogram[i] = d, h
        return difference, histogram

    def cut_scores(self, thresholds: CutThresholds = CutThresholds()) -> np.ndarray:
        return cut_scores(np.array(self.difference), np.array(self.histogram), np.array(self.flat, bool), thresholds,
                          *self.bridge_arrays())


def _side_sums(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Sums and counts of the valid values among the k before and the k after every element."""
    valid = np.ones(len(values), bool) if valid is None else np.asarray(valid, bool)
    padded = np.concatenate([[0.0], np.cumsum(np.where(valid, values, 0.0))])
    counts = np.concatenate([[0], np.cumsum(valid)])
    idx = np.arange(len(values))
    lo, hi = np.maximum(idx - k, 0), np.minimum(idx + k + 1, len(values))
    return (padded[idx] - padded[lo], counts[idx] - counts[lo], padded[hi] - padded[idx + 1],
            counts[hi] - counts[idx + 1])


def neighbour_mean(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> np.ndarray:
    """Mean of the valid values among the k on each side of every element, itself excluded."""
    before, n_before, after, n_after = _side_sums(values, k, valid)
    return (before + after) / np.maximum(n_before + n_after, 1)


def side_means(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the valid values among the k before and the k after every element (0 where a
    side has none)."""
    before, n_before, after, n_after = _side_sums(values, k, valid)
    return before / np.maximum(n_before, 1), after / np.maximum(n_after, 1)


def bridged(difference: np.ndarray, histogram: np.ndarray, flat: np.ndarray, bridge: np.ndarray | None = None,
            bridge_histogram: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The per-step cues with each bridged flat run's comparison standing in for the step out
    of it (that step then counts as solid)."""
    if bridge is None or not len(bridge):
        return difference, histogram, flat
    across = np.isfinite(bridge)
    return (np.where(across, bridge, difference), np.where(across, bridge_histogram, histogram),
            np.asarray(flat, bool) & ~across)


def cut_scores(difference: np.ndarray, histogram: np.ndarray, flat: np.ndarray,
               t: CutThresholds = CutThresholds(), bridge: np.ndarray | None = None,
               bridge_histogram: np.ndarray | None = None) -> np.ndarray:
    """Per frame, a score that is >= 1 exactly when a cut lands on that frame. Flat steps count
    neither as cuts nor as neighbours; with `bridge` (FrameSignals.bridge_arrays), the step out of a
    short flat run is judged by the comparison across the run."""
    if len(difference) == 0:
        return np.zeros(0)
    difference, histogram, flat = bridged(difference, histogram, np.asarray(flat, bool), bridge, bridge_histogram)
    solid = ~flat
    spike = difference / np.maximum(neighbour_mean(difference, t.neighbours, solid), 0.01)
    confirmed = np.maximum(histogram / t.histogram, spike / t.ratio_alone)
    score = np.minimum(np.minimum(difference / t.floor, spike / t.ratio), confirmed)
    sided = difference / np.maximum(np.maximum(*side_means(difference, t.neighbours, solid)), 0.01)
    score = np.maximum(score, np.minimum(difference / t.decorrelated, sided / t.ratio_decorrelated))
    score[flat] = 0.0
    score[0] = 0.0
    return score
