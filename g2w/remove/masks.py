"""Where a remover gets its UI mask: the case's ground truth (`gt`) or the learned segmenter.

`gt` is the synthetic `mask.mkv` when the case has one, else the annotation's boxes mapped onto
the video (wild cases); it is an oracle. `segmenter` predicts the mask from the video alone, so
a method using it needs nothing but the footage: the checkpoint's refined mask, adjusted by the
removal's mask rules (`g2w.segment.mask_rules.REMOVAL_RULES`, or the rules a caller configures).
Either way masks arrive one frame at a time at the video's own size, binarised to 0/255 and
grown by `dilate_px` so the soft, codec-smeared rim of each widget is covered too.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Iterable, Iterator, Sequence

import cv2
import numpy as np

from g2w.cases.annotation import Annotation, load_annotation
from g2w.cases.canvas import map_box
from g2w.cases.case import Case
from g2w.segment.mask_rules import REMOVAL_RULES, MaskRule, parse_rules
from g2w.video import iter_masks, probe

MASK_SOURCES = ("segmenter", "gt")


def _nearest(listed: list[int], frame: int) -> int | None:
    """The listed frame closest to `frame` (ties go to the earlier one); None if none listed."""
    if not listed:
        return None
    k = bisect.bisect_left(listed, frame)
    candidates = listed[max(0, k - 1) : k + 1]
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


def raw_masks(
    case: Case,
    source: str = "gt",
    checkpoint: str | None = None,
    rules: str | Sequence[MaskRule] | None = None,
    decoded: Iterable | None = None,
) -> Iterator[np.ndarray]:
    """The case's masks before dilation, one per frame of its source video. For `segmenter`: the
    checkpoint's refined mask (near the UI the video's own pixels decide), adjusted by `rules`
    (`g2w.segment.mask_rules`; default `REMOVAL_RULES`); `decoded` is the source's frames
    (`av.VideoFrame`s) from a decode the caller shares (`Segmenter.frames`). Both are ignored for `gt`."""
    if source not in MASK_SOURCES:
        raise ValueError(f"unknown mask source {source!r}: use one of {MASK_SOURCES}")
    info = probe(case.source)
    if source == "segmenter":
        from g2w.segment.predict import Segmenter, full_mask

        chosen = parse_rules(REMOVAL_RULES if rules is None else rules)  # a bad rule list fails before decoding
        segmenter = Segmenter(checkpoint, threads=1, full_res=True)
        return (full_mask(p, info.width, info.height, rules=chosen) for p in segmenter.frames(case.source, decoded))
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


def case_holes(
    case: Case,
    source: str = "gt",
    dilate_px: int = 2,
    checkpoint: str | None = None,
    rules: str | Sequence[MaskRule] | None = None,
    decoded: Iterable | None = None,
) -> Iterator[np.ndarray]:
    """What a remover fills in each frame: the chosen mask, binarised and dilated (`rules`,
    `decoded`: see `raw_masks`)."""
    return holes(raw_masks(case, source, checkpoint, rules, decoded), dilate_px)
