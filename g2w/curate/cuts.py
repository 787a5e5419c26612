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
run. A fade out and back into one place bridges to the same picture, so it does not cut. Only a
run that *dips* is bridged (its darkest frame at most BRIDGE_DIP of each end's contrast): a dim
scene whose contrast hovers about the flat level has near-flat ends whose normalized pictures
differ like unrelated views, and bridging them made false cuts in real dark footage.

A fourth cue explains a step *locally*: on a larger 160x90 luma thumbnail, each block of an 8x6
grid is searched for in the previous frame, near where it was and near where the global shift
puts it, by zero-mean normalized correlation (gain- and offset-invariant, so a red damage tint or
a brightening flash mostly vanishes). The share of textured blocks that no nearby position
explains is the step's *unexplained share*: a camera turn leaves few blocks unexplained (each
finds itself somewhere close), a beam or a muzzle flash only the minority of blocks it covers, a
cut between two moments of one map most blocks, even where the global difference and the
histogram barely move. It costs a few milliseconds, so it is measured only where it can change
the decision (a score of at least min(promote_score, 1), known once the neighbours after the step
are). It acts twice. A step just under the cut score (>= `promote_score`) that leaves at least
`promote_unexplained` of its blocks unexplained is a cut. So is a step scoring at least
`standout_score` whose unexplained share *stands out*: exceeds those of the steps just before and
just after it by `standout_unexplained`. A cut leaves each shot self-consistent, so the steps on
either side are explained and the cut alone is not; a fast strafe or turn that outruns the block
search leaves its neighbouring steps as unexplained as itself, and a turn scoring near 1 that
leaves a third of its blocks unexplained usually leaves as many at the next step. A step reaching the cut score whose
blocks are at least `veto_coherent` explained at ONE offset, the one the camera's ongoing motion
predicts (the global shift of the step before), is a flash, a beam or a tint over a moving view,
not a cut. The veto matches the *detail* of the blocks (luma less its blur, `detail_matches`)
and counts a block only where its match is informative: the match must beat the block's best
correlation with its own frame elsewhere (its look-alikes) by a margin. Matched on plain luma,
two procedural cuts (corridor, racing) looked as coherent as the real flashes: a checkered floor
or road stripes match at many offsets, a sky gradient or smooth noise matches anything, and the
player's weapon or car stays where it was. The share unexplained alone cannot veto either: on
smooth textures a block of one place finds a close match somewhere in another, so a cut there
looks explained. The veto counts only where the camera moved at the step before (at least
`VETO_MOTION_PX` on an axis): two views that share their layout (a procedural corridor's
geometry and floor in another map) match at zero offset as well as a flash over an unchanged
view does, so a coherent match of a still camera proves nothing; a moving camera's offset is
one that only the same place, carried on by the motion, can match. So a flash over a still view
is not vetoed (it stays a cut), and neither is a cut between look-alike views under a still
camera (checked on real and painted flashes, and on real, procedural and look-alike cuts).

Where the camera rests, a fifth cue asks whether the step is *transient*: a flash, a muzzle
flash or an explosion lasts a few frames, so the view before it comes back after it, and the
step out of it returns to the view seen just before it began; after a cut the new shot persists
and was not there before. A step's *return* is the smallest motion-compensated difference of
frame i-1 to frames i+1..i+RETURN_FRAMES, or of frame i to frames i-1-RETURN_FRAMES..i-2, over
the step's own difference. A step with the camera resting at the step before (under
VETO_MOTION_PX) whose return is at most `veto_return` is not a cut. It needs frames after the
step, so it is followed as they come (a few 64x36 comparisons per candidate step, only at steps
that can reach the cut score); a step within RETURN_FRAMES of the end of a source is judged on
the frames that came, and one with no frame after it is not vetoed.

A step inside a *run* of decorrelating steps is not a cut either (`veto_run`): where both
adjacent steps differ at least 1/veto_run as much as the step itself, the view is moving faster
than the motion compensation follows (a fast strafe past a near wall moves it a third of the
frame while the far room barely moves), and the structural path's side means, diluted by the
calm frames around a short run, can still let the middle step stand out. A cut changes the
picture once, so one adjacent step at least belongs to a shot; with a fast turn before the cut,
the one after it still does. The cue is two comparisons per step, free.

A sixth test looks at a *window* around a candidate, not one step: a muzzle flash or an explosion
lights the whole picture for a few frames, and in a software-lit engine (Doom's extra light) it
relights it unevenly, so frames inside the flash differ from the frames around it in structure,
not only in gain, and no single-step cue explains the step into or out of it; and the camera may
move while it lasts, so the frame before the flash need not come back exactly. A flash is a
transient rise of the mean luma: a run of frames, all at least `flash_gain` times brighter than
both the last frame before the run and the first frame after it, lasting at most FLASH_S. Its two
ends are unlit views of one moment, so they show one place: compared by the local cue's block
search (which tolerates the camera's motion over the run), at most FLASH_UNEXPLAINED of the
blocks are unexplained. Every step from the one into the run to the one out of it is then no cut
(`flash`). A cut between a dark and a bright shot is no flash: the bright shot lasts, or its
ends show two places. The test runs as frames come, on the mean luma (free) and one block
search per end of a lit run.

Deciding needs frames after the cut, so the signals of a whole source are recorded (a few
numbers per frame) and decided at its end. Windows that straddle a cut are rejected
(`scene_cut`); a cut on a window's first frame belongs to neither window.
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass

import av
import cv2
import numpy as np

from g2w.video.planes import is_planar_yuv, plane_view

THUMB = (64, 36)
_MAX_SHIFT = (16, 9)  # thumbnail pixels (a quarter of the frame): larger "shifts" are not motion
_MIN_SHIFT_RESPONSE = 0.05
FLAT_CONTRAST = 4.0  # luma std (0-255) below which a thumbnail is too flat to judge
_LUMA_BINS, _CHROMA_BINS = 32, 16
MAX_BRIDGE_S = 1.0  # a flat run at most this long is bridged (compared across); longer ones end a shot
BRIDGE_DIP = 0.5  # ... and only when its darkest frame's contrast is at most this share of each end's (a real dip)
BLOCKS_THUMB = (160, 90)  # the local cue's luma thumbnail
BLOCK_GRID = (8, 6)  # blocks across and down (20 x 15 pixels each)
BLOCK_SEARCH = 0.2  # searched this far (fraction of the width) around the block and the global shift
BLOCK_MATCH = 0.5  # best normalized correlation below which a block is unexplained
BLOCK_MIN_STD = 4.0  # luma std below which a block is too flat to judge
MIN_BLOCKS = 4  # textured blocks needed for an unexplained share
COHERENT_PX = 5  # offsets this close (pixels of BLOCKS_THUMB) are one motion
DETAIL_SIGMA = 4.0  # the coherent veto matches the detail: luma less its Gaussian blur of this sigma (pixels)
DETAIL_MIN_STD = 2.0  # detail std below which a block has nothing to match (a smooth gradient, a flat sky)
DISTINCT_PX = 3  # a block's own look-alikes are searched beyond this offset (pixels) ...
DISTINCT_MARGIN = 0.1  # ... and its match counts only when it beats the best of them by this much
VETO_MOTION_PX = 2.0  # the camera's motion (pixels of BLOCKS_THUMB) below which a coherent match proves nothing
RETURN_FRAMES = 12  # frames after a step (0.4 s at 30 fps) in which the view before it may come back (the return veto)
FLASH_S = 1.0  # the longest lit run the flash test takes for a flash (seconds, from its last unlit frame to its first)
FLASH_UNEXPLAINED = 0.5  # ... whose unlit ends match: at most this share of blocks unexplained between them
FLASH_HOLD = 128  # frames of block luma held for the flash test (FLASH_S at up to about 120 fps)
CANDIDATE_SCORE = 0.5  # the calibration measures the local cue from this score up (the job: where it decides)


@dataclass(frozen=True)
class CutThresholds:
    """Chosen on real footage (the record: docs/experiments/2026-12-05-readme-record.md)."""

    floor: float = 0.3  # motion-compensated difference below which nothing is a cut
    ratio: float = 2.5  # ... that many times the neighbours' mean, with the histogram agreeing
    histogram: float = 0.15  # histogram change (0-1) that confirms a content change
    ratio_alone: float = 8.0  # a spike this sharp is a cut without the histogram
    neighbours: int = 4  # frames on each side the spike is compared with
    decorrelated: float = 0.87  # a difference this large: the frames share nothing a shift explains
    ratio_decorrelated: float = 1.85  # ... and that many times the mean of EACH side: a cut alone
    promote_score: float = 0.9  # a score this close to 1 is a cut when ...
    promote_unexplained: float = 0.6  # ... at least this share of blocks is unexplained (inf: never)
    standout_score: float = 0.85  # a score this close to 1 is a cut too when ...
    standout_unexplained: float = (
        0.25  # ... its unexplained share exceeds both neighbouring steps' by this much (inf: never)
    )
    veto_coherent: float = 0.25  # a step whose blocks' detail is this coherently explained at the moving
    # camera's offset is no cut (inf: never); only counted where the camera moved (VETO_MOTION_PX)
    veto_return: float = 0.6  # a step whose view before comes back within RETURN_FRAMES (the smallest difference
    # to a frame after it, over the step's own difference) at or below this is no cut (0: never); only where
    # the camera rested (under VETO_MOTION_PX), the coherent veto's complement
    flash_gain: float = 1.15  # a run of frames this many times brighter (mean luma) than the unlit frames on
    # both sides, within FLASH_S, whose two ends match (FLASH_UNEXPLAINED), is a flash: no step of it is a cut (0: never)
    veto_run: float = 1.5  # a step whose difference is under this many times BOTH adjacent steps' is inside
    # a run of fast motion, not a cut (0: never)


@dataclass(frozen=True)
class Thumb:
    pixels: np.ndarray  # (36, 64) float32, zero mean, unit std
    contrast: float  # luma std before normalizing
    histogram: np.ndarray  # luma then U then V bins, each channel summing to 1
    blocks: np.ndarray | None = None  # (90, 160) uint8 luma for the local cue; None: no local cue


def _strided(plane, width: int, height: int) -> np.ndarray:
    """A view of one 8-bit plane, strided down to about width x height."""
    a = plane_view(plane)
    return a[:: max(1, a.shape[0] // height), :: max(1, a.shape[1] // width)]


def _histogram(y: np.ndarray, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    parts = [np.bincount(y.ravel() >> 3, minlength=_LUMA_BINS) / y.size]
    parts += [np.bincount(c.ravel() >> 4, minlength=_CHROMA_BINS) / c.size for c in (u, v)]
    return np.concatenate(parts).astype(np.float32)


def luma_thumb(frame: av.VideoFrame) -> Thumb:
    """The frame's normalized 64x36 luma thumbnail, its colour histogram and the 160x90 luma of
    the local cue, read from the planes without a colour conversion when the decoder gives
    planar 8-bit YUV."""
    if not is_planar_yuv(frame):  # nv12, gray, 10-bit, RGB: swscale makes planar 8-bit
        frame = frame.reformat(width=2 * BLOCKS_THUMB[0], height=2 * BLOCKS_THUMB[1], format="yuv420p")
    y = _strided(frame.planes[0], 2 * THUMB[0], 2 * THUMB[1])  # range does not matter: normalized below
    u, v = (_strided(p, THUMB[0], THUMB[1]) for p in frame.planes[1:3])
    small = cv2.resize(y, THUMB, interpolation=cv2.INTER_AREA)
    histogram = _histogram(small, u, v)
    small = cv2.GaussianBlur(small.astype(np.float32), (3, 3), 0)
    mean, std = cv2.meanStdDev(small)
    contrast = float(std[0, 0])
    blocks = cv2.resize(
        _strided(frame.planes[0], 2 * BLOCKS_THUMB[0], 2 * BLOCKS_THUMB[1]), BLOCKS_THUMB, interpolation=cv2.INTER_AREA
    )
    return Thumb((small - float(mean[0, 0])) / max(contrast, 1e-3), contrast, histogram, blocks)


def motion_compensated_difference(prev: np.ndarray, cur: np.ndarray) -> tuple[float, tuple | None]:
    """(mean |cur - prev| after undoing the global shift between them, that shift as a fraction
    of the thumbnail width or None when phase correlation finds no reliable one). Undoing the
    shift keeps a pan or a camera shake from looking like new content."""
    raw = cv2.mean(cv2.absdiff(cur, prev))[0]
    (dx, dy), response = cv2.phaseCorrelate(prev, cur)
    if response < _MIN_SHIFT_RESPONSE or abs(dx) > _MAX_SHIFT[0] or abs(dy) > _MAX_SHIFT[1]:
        return raw, None
    moved = cv2.warpAffine(
        prev, np.float32([[1, 0, dx], [0, 1, dy]]), (prev.shape[1], prev.shape[0]), borderMode=cv2.BORDER_REPLICATE
    )
    mx, my = max(1, int(np.ceil(abs(dx)))), max(1, int(np.ceil(abs(dy))))
    inner = cv2.absdiff(cur, moved)[my:-my, mx:-mx]  # the strip the shift uncovered is unknown
    return min(raw, cv2.mean(inner)[0]), (dx / THUMB[0], dy / THUMB[0])


def block_matches(prev: np.ndarray, cur: np.ndarray, offsets: bool = False) -> np.ndarray:
    """The best zero-mean normalized correlation of each textured block of cur (BLOCK_GRID) with
    prev, searched within BLOCK_SEARCH of the block and of where the global phase-correlation
    shift puts it; with `offsets`, rows of (correlation, dx, dy): where in prev the best match
    lies, relative to the block (pixels). Both are BLOCKS_THUMB luma images."""
    p, c = prev.astype(np.float32), cur.astype(np.float32)
    height, width = c.shape
    bw, bh = width // BLOCK_GRID[0], height // BLOCK_GRID[1]
    reach = int(round(BLOCK_SEARCH * width))
    centres = [(0, 0)]
    (dx, dy), response = cv2.phaseCorrelate(p, c)
    if response >= _MIN_SHIFT_RESPONSE and (round(dx), round(dy)) != (0, 0):
        centres.append((-int(round(dx)), -int(round(dy))))  # cur(x) ~ prev(x - shift)
    matches = []
    for y0 in range(0, bh * BLOCK_GRID[1], bh):
        for x0 in range(0, bw * BLOCK_GRID[0], bw):
            block = c[y0 : y0 + bh, x0 : x0 + bw]
            if cv2.meanStdDev(block)[1][0, 0] < BLOCK_MIN_STD:
                continue
            best, where = -1.0, (0, 0)
            for ox, oy in centres:
                xa, xb = max(0, x0 + ox - reach), min(width, x0 + ox + bw + reach)
                ya, yb = max(0, y0 + oy - reach), min(height, y0 + oy + bh + reach)
                if xb - xa >= bw and yb - ya >= bh:
                    match = cv2.matchTemplate(p[ya:yb, xa:xb], block, cv2.TM_CCOEFF_NORMED)
                    _, top, _, (mx, my) = cv2.minMaxLoc(np.nan_to_num(match, nan=-1.0))
                    if top > best:
                        best, where = float(top), (xa + mx - x0, ya + my - y0)
            matches.append((best, *where))
    out = np.array(matches, np.float64).reshape(-1, 3)
    return out if offsets else out[:, 0]


def detail(luma: np.ndarray) -> np.ndarray:
    """The fine detail of a BLOCKS_THUMB luma image: itself less its Gaussian blur (DETAIL_SIGMA).
    A tint, a brightening flash or a smooth gradient (a sky) carry none of it; edges and texture do."""
    f = luma.astype(np.float32)
    return f - cv2.GaussianBlur(f, (0, 0), DETAIL_SIGMA)


def detail_matches(prev: np.ndarray, cur: np.ndarray) -> np.ndarray:
    """Rows of (correlation, dx, dy, self-similarity) for each block of cur's `detail` with
    detail to match (DETAIL_MIN_STD): its best match in prev's detail as `block_matches` finds it
    (near the block and near the global shift), and its best correlation with cur itself more
    than DISTINCT_PX away from where it is (within the same reach). A block of a repeating or
    smooth pattern (a checkered floor, road stripes, procedural noise) finds itself elsewhere
    almost as well, so its match says little about where it came from; the veto counts only
    blocks whose match beats that by DISTINCT_MARGIN. Both are BLOCKS_THUMB luma images."""
    p, c = detail(prev), detail(cur)
    height, width = c.shape
    bw, bh = width // BLOCK_GRID[0], height // BLOCK_GRID[1]
    reach = int(round(BLOCK_SEARCH * width))
    centres = [(0, 0)]
    (dx, dy), response = cv2.phaseCorrelate(p, c)
    if response >= _MIN_SHIFT_RESPONSE and (round(dx), round(dy)) != (0, 0):
        centres.append((-int(round(dx)), -int(round(dy))))
    rows = []
    for y0 in range(0, bh * BLOCK_GRID[1], bh):
        for x0 in range(0, bw * BLOCK_GRID[0], bw):
            block = c[y0 : y0 + bh, x0 : x0 + bw]
            if cv2.meanStdDev(block)[1][0, 0] < DETAIL_MIN_STD:
                continue
            best, where = -1.0, (0, 0)
            for ox, oy in centres:
                xa, xb = max(0, x0 + ox - reach), min(width, x0 + ox + bw + reach)
                ya, yb = max(0, y0 + oy - reach), min(height, y0 + oy + bh + reach)
                if xb - xa >= bw and yb - ya >= bh:
                    match = np.nan_to_num(cv2.matchTemplate(p[ya:yb, xa:xb], block, cv2.TM_CCOEFF_NORMED), nan=-1.0)
                    _, top, _, (mx, my) = cv2.minMaxLoc(match)
                    if top > best:
                        best, where = float(top), (xa + mx - x0, ya + my - y0)
            xa, xb = max(0, x0 - reach), min(width, x0 + bw + reach)
            ya, yb = max(0, y0 - reach), min(height, y0 + bh + reach)
            own = np.nan_to_num(cv2.matchTemplate(c[ya:yb, xa:xb], block, cv2.TM_CCOEFF_NORMED), nan=-1.0)
            cx, cy = x0 - xa, y0 - ya  # the block itself, in `own`
            own[max(0, cy - DISTINCT_PX) : cy + DISTINCT_PX + 1, max(0, cx - DISTINCT_PX) : cx + DISTINCT_PX + 1] = -1.0
            rows.append((best, *where, float(own.max())))
    return np.array(rows, np.float64).reshape(-1, 4)


def coherent_share(matches: np.ndarray, expected: tuple[float, float]) -> float:
    """The share of blocks explained (BLOCK_MATCH) at one common offset: within COHERENT_PX of
    the explained blocks' median offset, itself in agreement with `expected` (the offset the
    camera's ongoing motion predicts, pixels; within COHERENT_PX plus half its size), else 0.
    `matches` are `block_matches(..., offsets=True)` rows, or `detail_matches` rows, whose
    blocks count as explained only when the match also beats the block's own look-alikes by
    DISTINCT_MARGIN. A flash over a moving view: the rest of the picture is explained at the
    camera's offset, high; a cut: each block finds a different spot, if any, low; a jump of the
    view by a large shift: coherent, but not at the camera's offset, 0. A camera that stood still
    (`expected` under VETO_MOTION_PX on both axes): 0, since two views that share their layout
    (a corridor's walls and floor in another map) match at zero offset as well as a flash over
    the same view does, so a match there proves nothing. NaN with fewer than MIN_BLOCKS blocks."""
    if len(matches) < MIN_BLOCKS:
        return float("nan")
    if np.abs(np.asarray(expected, float)).max() < VETO_MOTION_PX:
        return 0.0
    explained = matches[:, 0] >= BLOCK_MATCH
    if matches.shape[1] > 3:
        explained &= matches[:, 0] - matches[:, 3] >= DISTINCT_MARGIN
    if not explained.any():
        return 0.0
    centre = np.median(matches[explained, 1:3], axis=0)
    if np.abs(centre - np.asarray(expected)).max() > COHERENT_PX + 0.5 * np.abs(expected).max():
        return 0.0
    near = explained & (np.abs(matches[:, 1:3] - centre).max(axis=1) <= COHERENT_PX)
    return float(near.mean())


def _share_below(matches: np.ndarray, level: float) -> float:
    return float(np.mean(matches < level)) if len(matches) >= MIN_BLOCKS else float("nan")


def unexplained_share(prev: np.ndarray, cur: np.ndarray) -> float:
    """The share of cur's textured blocks that no nearby position of prev matches with a
    correlation of BLOCK_MATCH (`block_matches`); NaN with fewer than MIN_BLOCKS textured blocks."""
    return _share_below(block_matches(prev, cur), BLOCK_MATCH)


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

    def __init__(self, thresholds: CutThresholds = CutThresholds(), measure_from: float | None = None):
        self.times = array("d")
        self.difference = array("d")
        self.histogram = array("d")
        self.flat = array("b")
        self.shift = array("d")  # dx0, dy0, dx1, dy1, ...
        self.unexplained = array("d")  # the local cue, NaN where not measured (not a candidate)
        self.coherent = array("d")  # ... the share explained at the camera's offset (the veto's), NaN likewise
        self.standout = array("d")  # ... the unexplained share less the larger of the steps before and after it
        self.back = array("d")  # the return: the smallest difference of frame i-1 to frames i+1..i+RETURN_FRAMES
        # or of frame i to frames i-1-RETURN_FRAMES..i-2, over step i's own difference; NaN where not measured
        self._returning: dict[int, list] = {}  # steps whose return is still being measured: [pixels of i-1, own, best]
        self.flash = array("b")  # steps into, inside and out of a flash (the flash test)
        self._lit: deque = deque(maxlen=FLASH_HOLD)  # (index, time, mean luma, blocks) of the latest frames
        self.bridges: dict[int, tuple[float, float]] = {}
        self._prev: Thumb | None = None
        self._solid: tuple[float, Thumb] | None = None  # the last frame that was not flat, and its time
        self._dip = np.inf  # the lowest contrast of the flat frames since it
        self._thresholds = thresholds  # which steps the local cue can decide
        self._measure_from = measure_from  # or: measure it at every step scoring this much (calibration)
        self._recent: deque = deque(maxlen=thresholds.neighbours + 3)  # (index, blocks) of the latest frames
        self._pixels: deque = deque(maxlen=thresholds.neighbours + RETURN_FRAMES + 2)  # (index, thumbnail pixels)
        self._judged = 1  # steps before this one have had their candidacy decided

    def add(self, t: float, thumb: Thumb) -> None:
        prev, self._prev = self._prev, thumb
        self.times.append(t)
        self.unexplained.append(np.nan), self.coherent.append(np.nan), self.standout.append(np.nan)
        self.back.append(np.nan)
        self._recent.append((len(self.times) - 1, thumb.blocks))
        self._pixels.append((len(self.times) - 1, thumb.pixels))
        self._follow_returns(len(self.times) - 1, thumb.pixels)
        self._bridge(t, prev, thumb)
        self.flash.append(0)
        if thumb.blocks is not None:
            self._lit.append((len(self.times) - 1, t, float(cv2.mean(thumb.blocks)[0]), thumb.blocks))
            self._end_flash()
        if prev is None:
            self.difference.append(0.0), self.histogram.append(0.0), self.flat.append(True)
            self.shift.extend((np.nan, np.nan))
        else:
            diff, shift = motion_compensated_difference(prev.pixels, thumb.pixels)
            self.difference.append(diff)
            self.histogram.append(histogram_change(prev.histogram, thumb.histogram))
            self.flat.append(min(prev.contrast, thumb.contrast) < FLAT_CONTRAST)
            self.shift.extend(shift if shift is not None else (np.nan, np.nan))
        # a step's score is known once the neighbours after it are: measure the local cue there
        last = len(self.times) - 1 - self._thresholds.neighbours
        if last >= self._judged:
            for i in range(self._judged, last + 1):
                self.unexplained[i], self.coherent[i], self.standout[i] = self._local_cue(i)
                self._start_return(i)
            self._judged = last + 1

    def _end_flash(self) -> None:
        """Whether the latest frame ends a flash: walking back from it within FLASH_S, a run of
        frames all at least `flash_gain` times brighter than it, preceded by a frame they are all
        as much brighter than, whose blocks match the latest frame's; if so, every step from the
        one into the run to the latest is marked. The walk stops at the first frame not that much
        brighter than the latest, so in steady footage it looks at one frame."""
        gain = self._thresholds.flash_gain
        if not gain > 1.0 or len(self._lit) < 3:
            return
        held = list(self._lit)
        n, t_n, luma_n, blocks_n = held[-1]
        lowest = np.inf  # the dimmest frame of the run so far
        for k in range(len(held) - 2, -1, -1):
            j, t_j, luma_j, blocks_j = held[k]
            if t_n - t_j > FLASH_S + 1e-6 or held[k + 1][0] != j + 1:
                return
            if np.isfinite(lowest) and luma_j * gain <= lowest:  # the last unlit frame before the run
                share = unexplained_share(blocks_j, blocks_n)
                if np.isfinite(share) and share <= FLASH_UNEXPLAINED:
                    for step in range(j + 1, n + 1):
                        self.flash[step] = 1
                return
            lowest = min(lowest, luma_j)
            if luma_n * gain > lowest:
                return

    def _window_score(self, i: int) -> float:
        """Step i's score without the local cue, from the neighbours on both sides that came."""
        k, t = self._thresholds.neighbours, self._thresholds
        lo, hi = max(0, i - k), min(len(self.times), i + k + 1)
        bridge, bridge_histogram = np.full(hi - lo, np.nan), np.full(hi - lo, np.nan)
        for j in range(lo, hi):
            if j in self.bridges:
                bridge[j - lo], bridge_histogram[j - lo] = self.bridges[j]
        return float(
            cut_scores(
                np.array(self.difference[lo:hi]),
                np.array(self.histogram[lo:hi]),
                np.array(self.flat[lo:hi], bool),
                t,
                bridge,
                bridge_histogram,
            )[i - lo]
        )

    def _return_candidate(self, i: int) -> bool:
        """Whether step i's return is measured: the veto is on (or `measure_from`), the step is
        solid and not bridged, the camera rested at the step before (under VETO_MOTION_PX), and
        its score can reach the cut score (that of the promotions, or `measure_from`)."""
        t = self._thresholds
        if i < 2 or i in self.bridges or self.flat[i] or (self._measure_from is None and t.veto_return <= 0):
            return False
        motion = np.nan_to_num(np.asarray(self.shift[2 * (i - 1) : 2 * i], float), nan=0.0) * BLOCKS_THUMB[0]
        if np.abs(motion).max() >= VETO_MOTION_PX:
            return False
        low = min(t.promote_score, t.standout_score if np.isfinite(t.standout_unexplained) else np.inf, 1.0)
        lowest = self._measure_from if self._measure_from is not None else low
        if self.difference[i] / min(t.floor, t.decorrelated) < lowest:  # no path can score that much
            return False
        return self._window_score(i) >= lowest

    def _start_return(self, i: int) -> None:
        """Begin measuring step i's return where it is a candidate, with the frames after it held so far."""
        held = dict(self._pixels)
        if not self._return_candidate(i) or held.get(i - 1) is None:
            return
        entry = [held[i - 1], max(self.difference[i], 0.01), self._seen_before(i, held)]
        for j in range(i + 1, min(i + RETURN_FRAMES, len(self.times) - 1) + 1):
            if held.get(j) is not None:
                entry[2] = min(entry[2], motion_compensated_difference(entry[0], held[j])[0])
        self.back[i] = entry[2] / entry[1] if np.isfinite(entry[2]) else np.nan
        if len(self.times) - 1 < i + RETURN_FRAMES:
            self._returning[i] = entry

    @staticmethod
    def _seen_before(i: int, held: dict) -> float:
        """The smallest difference of frame i to frames i-1-RETURN_FRAMES..i-2: the step out of a
        flash returns to a view seen just before the flash began."""
        before = [
            motion_compensated_difference(held[j], held[i])[0]
            for j in range(i - 1 - RETURN_FRAMES, i - 1)
            if held.get(j) is not None
        ]
        return min(before, default=np.inf)

    def _follow_returns(self, j: int, pixels: np.ndarray) -> None:
        """Compare frame j with the frame before each step still being measured."""
        for i in list(self._returning):
            entry = self._returning[i]
            entry[2] = min(entry[2], motion_compensated_difference(entry[0], pixels)[0])
            self.back[i] = entry[2] / entry[1]
            if j >= i + RETURN_FRAMES:
                del self._returning[i]

    def return_array(self) -> np.ndarray:
        """Each step's return (NaN where not measured). A step within RETURN_FRAMES of the end is
        judged on the frames that came; the last steps, whose neighbours after them never all came,
        are judged now with those that did; a step with no frame after it has none (never vetoed)."""
        back = np.array(self.back)
        held = dict(self._pixels)
        for i in range(max(self._judged, 2), len(back)):
            if self._return_candidate(i) and held.get(i - 1) is not None:
                after = [
                    motion_compensated_difference(held[i - 1], held[j])[0]
                    for j in range(i + 1, len(back))
                    if held.get(j) is not None
                ]
                best = min(after + [self._seen_before(i, held)])
                back[i] = best / max(self.difference[i], 0.01) if np.isfinite(best) else np.nan
        return back

    def _local_cue(self, i: int) -> tuple[float, float, float]:
        """Step i's unexplained share, coherent share and stand-out where they can change the
        decision (a score in [min(promote_score, standout_score), 1) for the first and the third,
        >= 1 with a veto for the second, from the neighbours on both sides; with `measure_from`,
        all at any score from that up) and both frames are still held; NaN otherwise. The
        stand-out is the step's unexplained share less the larger of those of steps i-1 and i+1
        (either one where the other cannot be judged). A bridged step is judged across its flat
        run, which the local cue does not see: NaN there too."""
        none = (float("nan"), float("nan"), float("nan"))
        if i == 0 or i in self.bridges or self.flat[i]:
            return none
        t = self._thresholds
        veto = np.isfinite(t.veto_coherent)
        low = min(t.promote_score, t.standout_score if np.isfinite(t.standout_unexplained) else np.inf)
        lowest = self._measure_from if self._measure_from is not None else (min(low, 1.0) if veto else low)
        if self.difference[i] / min(t.floor, t.decorrelated) < lowest:  # no path can score that much
            return none
        score = self._window_score(i)
        if self._measure_from is not None:
            promote = coherence = score >= self._measure_from
        else:
            promote, coherence = low <= score < 1.0, veto and score >= 1.0
        held = dict(self._recent)
        if not (promote or coherence) or held.get(i - 1) is None or held.get(i) is None:
            return none
        share = standout = float("nan")
        if promote:
            share = unexplained_share(held[i - 1], held[i])
            sides = [
                unexplained_share(held[j - 1], held[j])
                for j in (i - 1, i + 1)
                if held.get(j - 1) is not None
                and held.get(j) is not None
                and not self.flat[j]
                and j not in self.bridges
            ]
            sides = [x for x in sides if np.isfinite(x)]
            standout = share - max(sides) if sides else float("nan")
        if not coherence:
            return share, float("nan"), standout
        before = self.shift[2 * (i - 1) : 2 * i] if i >= 2 else (np.nan, np.nan)
        motion = np.nan_to_num(np.asarray(before, float), nan=0.0) * BLOCKS_THUMB[0]  # fractions of the width
        if np.abs(motion).max() < VETO_MOTION_PX:  # a still camera: no match can tell a flash (skip the search)
            return share, 0.0, standout
        # cur(x) ~ prev(x - shift): found at -shift
        return share, coherent_share(detail_matches(held[i - 1], held[i]), tuple(-motion)), standout

    def local_cue_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The local cue of every step (unexplained share, coherent share, stand-out); the last
        few steps, whose neighbours after them never all came, are judged with those that did (as
        `cut_scores` judges them)."""
        share, coherent, standout = np.array(self.unexplained), np.array(self.coherent), np.array(self.standout)
        for i in range(max(self._judged, 1), len(share)):
            share[i], coherent[i], standout[i] = self._local_cue(i)
        return share, coherent, standout

    def unexplained_array(self) -> np.ndarray:
        return self.local_cue_arrays()[0]

    def _bridge(self, t: float, prev: Thumb | None, thumb: Thumb) -> None:
        """Compare across a short flat run once it ends: its last solid frame with this one, when
        the run dips (BRIDGE_DIP). A dim scene whose contrast hovers about FLAT_CONTRAST flickers
        between flat and solid without any dip; its two ends are both near flat, so their
        normalized pictures are mostly quantization and would differ like two unrelated views."""
        solid = thumb.contrast >= FLAT_CONTRAST
        if (
            solid
            and prev is not None
            and prev.contrast < FLAT_CONTRAST
            and self._solid is not None
            and t - self._solid[0] <= MAX_BRIDGE_S + 1e-6
            and self._dip <= BRIDGE_DIP * min(self._solid[1].contrast, thumb.contrast)
        ):
            self.bridges[len(self.times) - 1] = (
                motion_compensated_difference(self._solid[1].pixels, thumb.pixels)[0],
                histogram_change(self._solid[1].histogram, thumb.histogram),
            )
        if solid:
            self._solid, self._dip = (t, thumb), np.inf
        else:
            self._dip = min(self._dip, thumb.contrast)

    def bridge_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(difference, histogram change) across each bridged flat run, on the frame after it; NaN elsewhere."""
        difference, histogram = np.full(len(self.times), np.nan), np.full(len(self.times), np.nan)
        for i, (d, h) in self.bridges.items():
            difference[i], histogram[i] = d, h
        return difference, histogram

    def cut_scores(self, thresholds: CutThresholds = CutThresholds()) -> np.ndarray:
        return cut_scores(
            np.array(self.difference),
            np.array(self.histogram),
            np.array(self.flat, bool),
            thresholds,
            *self.bridge_arrays(),
            *self.local_cue_arrays(),
            self.return_array(),
            np.array(self.flash, bool),
        )


def _side_sums(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Sums and counts of the valid values among the k before and the k after every element."""
    valid = np.ones(len(values), bool) if valid is None else np.asarray(valid, bool)
    padded = np.concatenate([[0.0], np.cumsum(np.where(valid, values, 0.0))])
    counts = np.concatenate([[0], np.cumsum(valid)])
    idx = np.arange(len(values))
    lo, hi = np.maximum(idx - k, 0), np.minimum(idx + k + 1, len(values))
    return (
        padded[idx] - padded[lo],
        counts[idx] - counts[lo],
        padded[hi] - padded[idx + 1],
        counts[hi] - counts[idx + 1],
    )


def neighbour_mean(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> np.ndarray:
    """Mean of the valid values among the k on each side of every element, itself excluded."""
    before, n_before, after, n_after = _side_sums(values, k, valid)
    return (before + after) / np.maximum(n_before + n_after, 1)


def side_means(values: np.ndarray, k: int, valid: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Mean of the valid values among the k before and the k after every element (0 where a
    side has none)."""
    before, n_before, after, n_after = _side_sums(values, k, valid)
    return before / np.maximum(n_before, 1), after / np.maximum(n_after, 1)


def bridged(
    difference: np.ndarray,
    histogram: np.ndarray,
    flat: np.ndarray,
    bridge: np.ndarray | None = None,
    bridge_histogram: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The per-step cues with each bridged flat run's comparison standing in for the step out
    of it (that step then counts as solid)."""
    if bridge is None or not len(bridge):
        return difference, histogram, flat
    across = np.isfinite(bridge)
    return (
        np.where(across, bridge, difference),
        np.where(across, bridge_histogram, histogram),
        np.asarray(flat, bool) & ~across,
    )


def cut_scores(
    difference: np.ndarray,
    histogram: np.ndarray,
    flat: np.ndarray,
    t: CutThresholds = CutThresholds(),
    bridge: np.ndarray | None = None,
    bridge_histogram: np.ndarray | None = None,
    unexplained: np.ndarray | None = None,
    coherent: np.ndarray | None = None,
    standout: np.ndarray | None = None,
    back: np.ndarray | None = None,
    flash: np.ndarray | None = None,
) -> np.ndarray:
    """Per frame, a score that is >= 1 exactly when a cut lands on that frame. Flat steps count
    neither as cuts nor as neighbours; with `bridge` (FrameSignals.bridge_arrays), the step out of a
    short flat run is judged by the comparison across the run; with `unexplained` (the local cue,
    NaN where not measured), a step scoring at least `promote_score` that leaves at least
    `promote_unexplained` of its blocks unexplained is a cut; with `coherent`, one whose blocks are
    at least `veto_coherent` explained at the camera's offset is not; with `standout`, a step scoring
    at least `standout_score` whose unexplained share exceeds its neighbouring steps' by
    `standout_unexplained` is a cut; with `back` (FrameSignals.return_array), one whose view before
    comes back to within `veto_return` of its own difference is not; nor is one inside a run of
    decorrelating steps (`veto_run`, `inside_run`), nor, with `flash` (FrameSignals.flash), a step
    into, inside or out of a flash."""
    if len(difference) == 0:
        return np.zeros(0)
    difference, histogram, flat = bridged(difference, histogram, np.asarray(flat, bool), bridge, bridge_histogram)
    solid = ~flat
    spike = difference / np.maximum(neighbour_mean(difference, t.neighbours, solid), 0.01)
    confirmed = np.maximum(histogram / t.histogram, spike / t.ratio_alone)
    score = np.minimum(np.minimum(difference / t.floor, spike / t.ratio), confirmed)
    sided = difference / np.maximum(np.maximum(*side_means(difference, t.neighbours, solid)), 0.01)
    score = np.maximum(score, np.minimum(difference / t.decorrelated, sided / t.ratio_decorrelated))
    if unexplained is not None and len(unexplained):
        score = with_local_cue(
            score,
            np.asarray(unexplained, float),
            t,
            None if coherent is None else np.asarray(coherent, float),
            None if standout is None else np.asarray(standout, float),
        )
    if back is not None and len(back) and t.veto_return > 0:
        score = np.where(
            np.nan_to_num(np.asarray(back, float), nan=np.inf) <= t.veto_return, np.minimum(score, 0.99), score
        )
    if flash is not None and len(flash) and t.flash_gain > 1.0:
        score = np.where(np.asarray(flash, bool), np.minimum(score, 0.99), score)
    if t.veto_run > 0:
        score = np.where(inside_run(difference, solid, t.veto_run), np.minimum(score, 0.99), score)
    score[flat] = 0.0
    score[0] = 0.0
    return score


def inside_run(difference: np.ndarray, solid: np.ndarray, level: float) -> np.ndarray:
    """Steps whose difference is under `level` times that of each adjacent step (both solid):
    inside a run of steps that all decorrelate. A fast turn or strafe that outruns the motion
    compensation decorrelates for a few frames in a row; a cut changes the picture once, so at
    least one of its adjacent steps belongs to a shot and moves far less.
    Flat or missing neighbours judge nothing."""
    run = np.zeros(len(difference), bool)
    if len(difference) >= 3:
        both = solid[:-2] & solid[2:]
        smaller = np.minimum(difference[:-2], difference[2:])
        run[1:-1] = both & (difference[1:-1] < level * smaller)
    return run


def with_local_cue(
    score: np.ndarray,
    unexplained: np.ndarray,
    t: CutThresholds,
    coherent: np.ndarray | None = None,
    standout: np.ndarray | None = None,
) -> np.ndarray:
    """The cut score where the local cue was measured: raised to 1 when the score is within
    `promote_score` and at least `promote_unexplained` of the blocks are unexplained (the max of
    the score and min(score / promote_score, share / promote_unexplained)); held under 1 (0.99)
    where at least `veto_coherent` of the blocks are explained at the camera's offset; raised the
    same way by the stand-out (`standout_score`, `standout_unexplained`); unchanged where a share is NaN."""
    measured = np.isfinite(unexplained)
    with np.errstate(divide="ignore", invalid="ignore"):
        promoted = np.minimum(score / t.promote_score, np.where(measured, unexplained, 0.0) / t.promote_unexplained)
        if standout is not None:
            alone = np.minimum(score / t.standout_score, np.nan_to_num(standout, nan=0.0) / t.standout_unexplained)
            promoted = np.maximum(promoted, np.where(np.isfinite(standout), alone, 0.0))
    score = np.where(measured, np.maximum(score, promoted), score)
    if coherent is not None and np.isfinite(t.veto_coherent):
        vetoed = np.nan_to_num(coherent, nan=-1.0) >= t.veto_coherent
        score = np.where(vetoed, np.minimum(score, 0.99), score)
    return score
