"""Removal baselines that every learned remover is scored against.

- `identity` returns the source unchanged (a byte copy): it removes nothing and preserves
  everything, so it anchors AAR at 0 and BG at 100.
- `telea` inpaints every frame with OpenCV's Telea method (`cv2.INPAINT_TELEA`) inside a UI
  mask: by default the learned segmenter's (`mask="segmenter"`, needs nothing but the video),
  or the case's ground truth (`mask="gt"`). `telea-gt` is the latter under its own name: an
  oracle-mask baseline that knows exactly where the UI is and shows what naive diffusion fill
  does to the scene. The mask is grown by `dilate_px` so the codec-smeared rim is filled too.

Outputs are written atomically (`VideoWriter` renames on close; the copy goes through a temp
name), so a rerun can trust that an existing `<case_id>.mp4` is complete.
"""

from __future__ import annotations

import os
import shutil

import cv2
import numpy as np

from g2w.cases.case import Case
from g2w.remove import MethodInputError
from g2w.remove.masks import case_holes
from g2w.video import VideoWriter, iter_frames, probe


def identity(case: Case, out_path: str, progress=None) -> int:
    """Copy the source; returns its frame count (reported as progress once the copy is whole)."""
    frames = probe(case.source).frame_count
    tmp = os.path.join(os.path.dirname(out_path), f".{os.path.basename(out_path)}.partial")
    shutil.copyfile(case.source, tmp)
    try:
        if progress:
            progress(frames)
    except BaseException:
        os.remove(tmp)
        raise
    os.replace(tmp, out_path)
    return frames


def even_size(case: Case) -> tuple[int, int, float]:
    """(width, height, fps) of the output: yuv420p needs even sizes, so an odd source loses its
    last row/column (aspect change < 0.01). A source under 2 pixels on a side has no such
    output: the case becomes an error row, `source_too_small`."""
    info = probe(case.source)
    if info.width < 2 or info.height < 2:
        raise MethodInputError("source_too_small", f"{case.source}: {info.width}x{info.height} has no yuv420p output")
    return info.width - info.width % 2, info.height - info.height % 2, info.fps


def telea(
    case: Case,
    out_path: str,
    mask: str = "segmenter",
    radius: int = 3,
    dilate_px: int = 2,
    crf: int = 18,
    preset: str = "veryfast",
    checkpoint: str | None = None,
    mask_rules: str | None = None,
    progress=None,
) -> int:
    """Inpaint every frame inside the chosen mask; returns the frames written. `mask_rules`: the
    segmenter mask's rules (`g2w.segment.mask_rules`; default `REMOVAL_RULES`)."""
    w, h, fps = even_size(case)
    written = 0
    with VideoWriter(out_path, w, h, fps, crf=crf, preset=preset) as writer:
        # strict: a mask stream shorter or longer than the video is an error, not a short output
        for frame, hole in zip(
            iter_frames(case.source), case_holes(case, mask, dilate_px, checkpoint, mask_rules), strict=True
        ):
            if hole.shape != frame.rgb.shape[:2]:
                raise ValueError(f"{case.case_id}: mask {hole.shape} does not match frame {frame.rgb.shape[:2]}")
            rgb = cv2.inpaint(frame.rgb, hole, radius, cv2.INPAINT_TELEA) if hole.any() else frame.rgb
            writer.write(np.ascontiguousarray(rgb[:h, :w]))
            written += 1
            if progress:
                progress(written)
    return written


def telea_gt(
    case: Case,
    out_path: str,
    radius: int = 3,
    dilate_px: int = 2,
    crf: int = 18,
    preset: str = "veryfast",
    progress=None,
) -> int:
    """Telea inside the ground-truth mask (the oracle baseline). Its options are spelled out so
    callers that read a method's signature (the service's option checks) see them."""
    return telea(
        case, out_path, mask="gt", radius=radius, dilate_px=dilate_px, crf=crf, preset=preset, progress=progress
    )
