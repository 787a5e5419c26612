"""Removal baselines that every learned remover is scored against.

- `identity` returns the source unchanged (a byte copy): it removes nothing and preserves
  everything, so it anchors AAR at 0 and BG at 100.
- `telea-gt` inpaints every frame with OpenCV's Telea method (`cv2.INPAINT_TELEA`) inside the
  case's ground-truth UI mask: the synthetic `mask.mkv` when the case has one, else the
  annotation's boxes scaled to the video (wild cases). The mask is grown by `dilate_px` so the
  soft, codec-smeared rim of each widget is filled too. It is an oracle-mask baseline: it
  knows exactly where the UI is, and shows what naive diffusion fill does to the scene.

Outputs are written atomically (`VideoWriter` renames on close; the copy goes through a temp
name), so a rerun can trust that an existing `<case_id>.mp4` is complete.
"""

from __future__ import annotations

import bisect
import os
import shutil
from collections.abc import Iterator

import cv2
import numpy as np

from g2w.evaluate.annotation import Annotation, load_annotation
from g2w.evaluate.canvas import map_box
from g2w.evaluate.cases import Case
from g2w.video import VideoWriter, iter_frames, iter_masks, probe


def identity(case: Case, out_path: str) -> int:
    """Copy the source; returns its frame count."""
    frames = probe(case.source).frame_count
    tmp = os.path.join(os.path.dirname(out_path), f".{os.path.basename(out_path)}.partial")
    shutil.copyfile(case.source, tmp)
    os.replace(tmp, out_path)
    return frames


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


def telea_gt(case: Case, out_path: str, radius: int = 3, dilate_px: int = 2, crf: int = 18,
             preset: str = "veryfast") -> int:
    """Inpaint every frame inside the ground-truth mask; returns the frames written."""
    info = probe(case.source)
    # yuv420p needs even sizes: an odd source loses its last row/column (aspect change < 0.01).
    w, h = info.width - info.width % 2, info.height - info.height % 2
    if case.mask and os.path.exists(case.mask):
        masks = iter_masks(case.mask)
    else:
        masks = box_masks(load_annotation(case.annotation), info.width, info.height, info.frame_count)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * dilate_px + 1, 2 * dilate_px + 1))
    written = 0
    with VideoWriter(out_path, w, h, info.fps, crf=crf, preset=preset) as writer:
        # strict: a mask stream shorter or longer than the video is an error, not a short output
        for frame, mask in zip(iter_frames(case.source), masks, strict=True):
            if mask.shape != frame.rgb.shape[:2]:
                raise ValueError(f"{case.case_id}: mask {mask.shape} does not match frame {frame.rgb.shape[:2]}")
            hole = np.where(mask >= 128, 255, 0).astype(np.uint8)
            if dilate_px:
                hole = cv2.dilate(hole, kernel)
            rgb = cv2.inpaint(frame.rgb, hole, radius, cv2.INPAINT_TELEA) if hole.any() else frame.rgb
            writer.write(np.ascontiguousarray(rgb[:h, :w]))
            written += 1
    return written

