"""Where a remover gets its UI mask: the case's ground truth (`gt`) or the learned segmenter.

`gt` is the synthetic `mask.mkv` when the case has one, else the annotation's boxes mapped onto
the video (wild cases); it is an oracle. `segmenter` predicts the mask from the video alone, so
a method using it needs nothing but the footage; its per-frame UI probability becomes a mask
through `MaskRefine` (`removal_masks`). Either way masks arrive one frame at a time at the
video's own size, binarised to 0/255 and grown by `dilate_px` (a segmenter mask by
`DEFAULT_REFINE.grow_px` more) so the soft, codec-smeared rim of each widget is covered too.
"""

from __future__ import annotations

import bisect
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from g2w.cases.annotation import Annotation, load_annotation
from g2w.cases.canvas import map_box
from g2w.cases.case import Case
from g2w.segment.support_motion import RATIO, keep_still_support
from g2w.video import iter_masks, probe

MASK_SOURCES = ("segmenter", "gt")


def _nearest(listed: list[int], frame: int) -> int | None:
    """The listed frame closest to `frame` (ties go to the earlier one); None if none listed."""
    if not listed:
        return None
    k = bisect.bisect_left(listed, frame)
    candidates = listed[max(0, k - 1):k + 1]
    return min(candidates, key=lambda f: (abs(f - frame), f))


def box_masks(annotation: Annotation, width: int, height: int, frame_count: int) -> Iterator[np.ndarray]:
    """Per-frame masks from annotation boxes, mapped onto the video's own pixel grid.

    Frames the annotation does not list take the boxes of the nearest listed frame (wild
    annotations are sparse; UI rarely jumps between annotated frames).
    """
    listed = sorted(annotation.frames)
    for i in range(frame_count):
        mask = np.zeros((height, width), np.uint8)
        nearest = _nearest(listed, i)
        for obj in annotation.objects_at(nearest) if nearest is not None else ():
            x1, y1, x2, y2 = map_box(obj.box, (annotation.width, annotation.height), (width, height))
            mask[y1:y2, x1:x2] = 255
        yield mask


@dataclass(frozen=True)
class MaskRefine:
    """How the segmenter's per-frame UI probability becomes a removal mask.

    Screen UI stays put, so evidence is pooled over time: a pixel's probability is raised to its
    mean over `window` frames centred on it (a widget the network sees clearly in most frames is
    kept in the frames where it hesitates). Then hysteresis: pixels at or above `high` are UI,
    and so are pixels at or above `low` connected to them (the faint rim and thin strokes of a
    widget the network found). `close_px` joins nearby parts (glyphs of one text) and enclosed
    gaps inside a found region are filled: removing a widget but keeping a hole in it leaves its
    inner edges. All of this runs at the model's resolution; the result is upsampled to the
    video's size and thresholded like `full_mask`. `grow_px` then widens the remover's dilation
    for this mask only.

    Without pooling, hysteresis, closing or filling (`uses_full_res`), the checkpoint's
    full-resolution refiner decides the pixels near the UI (the mask `g2w detect` writes), and
    `support` can widen it: the model-resolution probability at or above `support`, in regions
    connected to the refined mask, joins it (`supported_mask`). The refiner keeps a widget's
    strokes and text but drops its soft parts (a translucent panel's edge, a watermark's faint
    letters, a marker's outline) that the coarse probability still covers; anchoring on the
    refined mask keeps the coarse map's detached blobs out. `still` then adds the still, detailed
    pixels of the refiner's candidate tiles that touch the mask (`g2w.segment.still_detail`): on a HUD the
    network never saw, it finds a text line in part, and the missing glyphs are such pixels.
    """

    window: int = 0  # frames; 0 or 1: every frame on its own
    high: float = 0.5
    low: float = 0.5  # == high: no hysteresis
    close_px: int = 0
    fill_enclosed: bool = False
    grow_px: int = 0  # added to the remover's own dilation (the segmenter's edges are less sure than gt's)
    support: float = 0.0  # > 0: coarse probability at or above this, connected to the refined mask, joins it
    still: bool = False  # still, detailed pixels of the candidate tiles that touch the mask join it
    support_ratio: float = 0.0  # > 0: a part the support adds stays out when it moves more than this share of the world near it

    @property
    def is_plain(self) -> bool:
        """Each frame thresholded on its own at `high`: nothing pooled, joined, filled or widened."""
        return self.uses_full_res and not self.support and not self.still

    @property
    def uses_full_res(self) -> bool:
        """Each frame on its own at `high` (the refiner's mask, optionally widened by `support`
        and `still`)."""
        return self.window <= 1 and self == MaskRefine(high=self.high, low=self.high, grow_px=self.grow_px,
                                                       support=self.support, still=self.still,
                                                       support_ratio=self.support_ratio)


PLAIN = MaskRefine()
# support chosen on heldout720, checked on heldout2; still and support_ratio: README "Measured"
# ("Still detail", "The support's moving parts")
DEFAULT_REFINE = MaskRefine(support=0.5, still=True, support_ratio=RATIO)


def _refine_frame(prob: np.ndarray, mean: np.ndarray | None, r: MaskRefine) -> np.ndarray:
    """(h, w) uint8 0/255 UI mask at model resolution from one frame's uint8 probability."""
    p = prob if mean is None else np.maximum(prob, mean)
    high = p >= int(np.ceil(r.high * 255))
    if r.low < r.high:
        weak = (p >= int(np.ceil(r.low * 255))).astype(np.uint8)
        count, comp = cv2.connectedComponents(weak, connectivity=8)
        keep = np.zeros(count, bool)
        keep[np.unique(comp[high])] = True
        keep[0] = False
        mask = keep[comp]
    else:
        mask = high
    mask = mask.astype(np.uint8) * 255
    if r.close_px:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r.close_px + 1, 2 * r.close_px + 1))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, k)
    if r.fill_enclosed and mask.any():
        # background not reachable from the border is enclosed by UI: fill it
        h, w = mask.shape
        flood = np.zeros((h + 2, w + 2), np.uint8)
        flood[1:-1, 1:-1] = mask
        cv2.floodFill(flood, None, (0, 0), 128)
        mask = np.where(flood[1:-1, 1:-1] == 0, 255, mask).astype(np.uint8)
    return mask


def supported_mask(refined: np.ndarray, prob: np.ndarray, level: float) -> np.ndarray:
    """The refined full-size mask (0/255) plus the coarse probability's support around it.

    `prob` is the frame's uint8 UI probability at model resolution. Its regions at or above
    `level` (8-connected, at model resolution) that hold a pixel of the refined mask are
    upsampled bilinearly and thresholded at `level` like `full_mask`, and joined to `refined`;
    regions the refined mask does not touch are dropped (the refiner looked there and said no).
    """
    q = int(np.ceil(level * 255))
    low = (prob >= q).astype(np.uint8)
    if not low.any() or not refined.any():
        return refined
    h, w = prob.shape
    height, width = refined.shape
    seeds = cv2.resize(refined, (w, h), interpolation=cv2.INTER_AREA) > 0
    count, comp = cv2.connectedComponents(low, connectivity=8)
    keep = np.zeros(count, bool)
    keep[np.unique(comp[seeds & (low > 0)])] = True
    keep[0] = False
    if not keep.any():
        return refined
    kept = np.where(keep[comp], prob, 0).astype(np.uint8)
    up = kept if kept.shape == (height, width) else cv2.resize(kept, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.max(refined, cv2.threshold(up, q - 1, 255, cv2.THRESH_BINARY)[1])


def _upsample(mask: np.ndarray, width: int, height: int) -> np.ndarray:
    if mask.shape == (height, width):
        return mask
    up = cv2.resize(mask, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.threshold(up, 127, 255, cv2.THRESH_BINARY)[1]


def removal_masks(probs: Iterable[np.ndarray], width: int, height: int,
                  refine: MaskRefine | None = None) -> Iterator[np.ndarray]:
    """Full-size 0/255 masks from per-frame uint8 UI probabilities (model resolution), refined by
    `refine` (default `DEFAULT_REFINE`). Streams with `refine.window` frames in memory."""
    r = refine or DEFAULT_REFINE
    if r.uses_full_res:
        # the plain threshold, exactly `full_mask` without a refiner (probability upsampled, then
        # thresholded), widened by its own support when `r.support` is set
        level = int(np.ceil(r.high * 255))
        for prob in probs:
            up = prob if prob.shape == (height, width) else cv2.resize(prob, (width, height),
                                                                         interpolation=cv2.INTER_LINEAR)
            mask = cv2.threshold(up, level - 1, 255, cv2.THRESH_BINARY)[1]
            yield supported_mask(mask, prob, r.support) if r.support else mask
        return
    if r.window <= 1:
        for prob in probs:
            yield _upsample(_refine_frame(prob, None, r), width, height)
        return
    half = r.window // 2
    buf: deque = deque()  # probabilities of frames [first, first + len(buf))
    total = None
    first = done = 0
    for prob in probs:
        buf.append(prob)
        total = prob.astype(np.uint32) if total is None else total + prob
        # frame `done` has its whole window (done - half .. done + half) once done + half is in
        while done + half < first + len(buf):
            yield _upsample(_refine_frame(buf[done - first], (total // len(buf)).astype(np.uint8), r), width, height)
            done += 1
            if done - half > first:  # the oldest frame leaves every later window
                total -= buf.popleft()
                first += 1
    while done < first + len(buf):
        yield _upsample(_refine_frame(buf[done - first], (total // len(buf)).astype(np.uint8), r), width, height)
        done += 1
        if done - half > first and len(buf) > 1:
            total -= buf.popleft()
            first += 1


def segmenter_mask(prediction, width: int, height: int, refine: MaskRefine | None = None) -> np.ndarray:
    """One frame's removal mask (before dilation) from a `FramePrediction` with its full-resolution
    refinement: `full_mask`, widened by the coarse probability's support when `refine.support`,
    then by the still detail that touches it when `refine.still`."""
    from g2w.segment.predict import full_mask

    r = refine or DEFAULT_REFINE
    mask = full_mask(prediction, width, height, r.high)
    fr = prediction.full_res
    sized = fr is not None and (fr.width, fr.height) == (width, height)
    if r.support:
        supported = supported_mask(mask, np.clip(prediction.ui * 255 + 0.5, 0, 255).astype(np.uint8), r.support)
        if r.support_ratio and sized and fr.spread is not None:
            supported = keep_still_support(mask, supported, fr.spread, r.support_ratio)
        mask = supported
    if r.still and sized and fr.still is not None:
        mask = fr.still.join(mask)
    return mask


def raw_masks(case: Case, source: str = "gt", checkpoint: str | None = None,
              refine: MaskRefine | None = None, decoded: Iterable | None = None) -> Iterator[np.ndarray]:
    """The case's masks before dilation, one per frame of its source video. `decoded`: for
    `segmenter`, the source's frames (`av.VideoFrame`s) from a decode the caller shares
    (`Segmenter.frames`); ignored for `gt`."""
    if source not in MASK_SOURCES:
        raise ValueError(f"unknown mask source {source!r}: use one of {MASK_SOURCES}")
    info = probe(case.source)
    if source == "segmenter":
        from g2w.segment.predict import Segmenter

        r = refine or DEFAULT_REFINE
        if r.uses_full_res:  # near the UI the video's own pixels decide (the checkpoint's full-resolution refiner)
            segmenter = Segmenter(checkpoint, threads=1, full_res=True)
            return (segmenter_mask(p, info.width, info.height, r) for p in segmenter.frames(case.source, decoded))
        segmenter = Segmenter(checkpoint, threads=1)
        probs = (np.clip(p.ui * 255 + 0.5, 0, 255).astype(np.uint8) for p in segmenter.frames(case.source, decoded))
        return removal_masks(probs, info.width, info.height, refine)
    if case.mask and os.path.exists(case.mask):
        return iter_masks(case.mask)
    return box_masks(load_annotation(case.annotation), info.width, info.height, info.frame_count)


def holes(masks: Iterator[np.ndarray], dilate_px: int) -> Iterator[np.ndarray]:
    """Binary 0/255 masks grown by `dilate_px` (an ellipse), so codec-smeared rims are inside."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * dilate_px + 1, 2 * dilate_px + 1))
    for mask in masks:
        if mask.dtype == np.uint8:  # the same as below, without a full-frame int64 temporary
            hole = cv2.threshold(mask, 127, 255, cv2.THRESH_BINARY)[1]
        else:
            hole = np.where(mask >= 128, 255, 0).astype(np.uint8)
        yield cv2.dilate(hole, kernel) if dilate_px and hole.any() else hole


def case_holes(case: Case, source: str = "gt", dilate_px: int = 2, checkpoint: str | None = None,
               refine: MaskRefine | None = None, decoded: Iterable | None = None) -> Iterator[np.ndarray]:
    """What a remover fills in each frame: the chosen mask, binarised and dilated (`decoded`:
    see `raw_masks`)."""
    if source == "segmenter":
        dilate_px += (refine or DEFAULT_REFINE).grow_px
    return holes(raw_masks(case, source, checkpoint, refine, decoded), dilate_px)
