"""A whole case: one shared decode for the segmenter and the fill, chunks filled, frames encoded."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterator

import numpy as np

from g2w.cases.case import Case
from g2w.remove.baselines import even_size
from g2w.remove.masks import case_holes
from g2w.remove.propagate.fill import fill_chunk
from g2w.remove.unblend import ChunkReport, Unblend, unblend_chunk
from g2w.video import VideoWriter, iter_frames
from g2w.video.decode import iter_video_frames
from g2w.video.overlap import BackgroundWriter, prefetch

log = logging.getLogger(__name__)


class SharedDecode:
    """One decode of the source for both the segmenter and the fill.

    `frames()` is the segmenter's input (`av.VideoFrame`s, read on its decoding thread); before
    handing on each frame it converts it to full-size RGB and queues that for the fill, which
    takes them in order with `next_rgb()`. The fill reads frame i only after the segmenter gave
    mask i, which needs frame i, so the frame is always queued by then; the queue holds no more
    than the segmenter's lookahead, and a failed decode reaches the caller through the masks.
    """

    def __init__(self, path: str):
        self.path = path
        self._rgb: deque = deque()  # append / popleft are thread-safe

    def frames(self) -> Iterator:
        for _, _, frame in iter_video_frames(self.path):
            self._rgb.append(frame.to_ndarray(format="rgb24"))
            yield frame

    def next_rgb(self) -> np.ndarray:
        if not self._rgb:
            raise RuntimeError(f"{self.path}: a mask arrived before its frame was decoded")
        return self._rgb.popleft()

    def left(self) -> int:
        return len(self._rgb)


def frames_and_holes(
    case: Case, mask: str, dilate_px: int, checkpoint: str | None, depth: int, mask_rules: str | None = None
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(full-size RGB frame, hole) pairs in order, decoded and masked on background threads.
    The segmenter shares the fill's decode (`SharedDecode`); a gt mask is read beside it."""
    if mask == "segmenter":
        shared = SharedDecode(case.source)
        for hole in prefetch(case_holes(case, mask, dilate_px, checkpoint, mask_rules, shared.frames()), depth=depth):
            yield shared.next_rgb(), hole
        if shared.left():
            raise ValueError(f"{case.case_id}: {shared.left()} frames more than masks")
        return
    decoded = prefetch((f.rgb for f in iter_frames(case.source)), depth=depth)
    masks = prefetch(case_holes(case, mask, dilate_px, checkpoint, mask_rules), depth=depth)
    yield from zip(decoded, masks, strict=True)


def propagate(
    case: Case,
    out_path: str,
    mask: str = "segmenter",
    dilate_px: int = 2,
    chunk_frames: int = 90,
    crf: int = 18,
    preset: str = "veryfast",
    checkpoint: str | None = None,
    mask_rules: str | None = None,
    progress=None,
) -> int:
    """Remove the UI of one case by flow-guided propagation; returns the frames written.

    Decoding, the mask (the segmenter, for `mask="segmenter"`, which shares the decode) and
    encoding each run on their own thread beside the fill (`g2w.video.overlap`), so the next
    chunk is read and the last one encoded while this one is filled.

    The hole is the mask grown by `dilate_px`: 2 px, as for `telea`. A wider rim is more pixels
    guessed: a 4 px rim cost the judge's artifact rate with either mask. `mask_rules`: the segmenter mask's rules (`g2w.segment.mask_rules`; default
    `REMOVAL_RULES`).
    """
    return _by_chunks(
        case, out_path, mask, dilate_px, chunk_frames, crf, preset, checkpoint, mask_rules, progress, None
    )


def unblend_propagate(
    case: Case,
    out_path: str,
    mask: str = "segmenter",
    dilate_px: int = 2,
    chunk_frames: int = 90,
    crf: int = 18,
    preset: str = "veryfast",
    checkpoint: str | None = None,
    mask_rules: str | None = None,
    alpha_ceiling: float = Unblend.ceiling,
    progress=None,
) -> int:
    """`propagate`, then per chunk the static translucent layers in the hole are inverted
    (`g2w.remove.unblend`) where their opacity is at most `alpha_ceiling`; the propagated fill
    stays wherever a layer cannot be inverted. Returns the frames written."""
    if not 0 <= alpha_ceiling < 1:
        raise ValueError(f"alpha_ceiling must be in [0, 1), got {alpha_ceiling}")
    return _by_chunks(
        case,
        out_path,
        mask,
        dilate_px,
        chunk_frames,
        crf,
        preset,
        checkpoint,
        mask_rules,
        progress,
        Unblend(ceiling=alpha_ceiling),
    )


def _by_chunks(
    case: Case,
    out_path: str,
    mask: str,
    dilate_px: int,
    chunk_frames: int,
    crf: int,
    preset: str,
    checkpoint: str | None,
    mask_rules: str | None,
    progress,
    unblend: Unblend | None,
) -> int:
    w, h, fps = even_size(case)
    written = 0
    frames, holes = [], []
    report = ChunkReport()
    # queues a chunk deep: while a chunk is filled, the next one is decoded (and segmented) and
    # the last one encoded, instead of each stage waiting a chunk's time for the others
    with BackgroundWriter(VideoWriter(out_path, w, h, fps, crf=crf, preset=preset), depth=chunk_frames) as writer:

        def submit(frame: np.ndarray) -> None:
            writer.submit(np.ascontiguousarray(frame[:h, :w]))

        def flush():
            nonlocal written
            if unblend is None:
                # each frame goes to the encoder as soon as it is filled (from either fill thread):
                # the encoder starts on the chunk while its fill finishes
                done = fill_chunk(frames, holes, emit=submit)
            else:  # the layer is fitted over the whole chunk's fill before any frame is final
                steps: list = []
                done, part = unblend_chunk(frames, holes, fill_chunk(frames, holes, steps=steps), steps, unblend)
                report.add(part)
                for frame in done:
                    submit(frame)
            for _ in done:
                written += 1
                if progress:
                    progress(written)
            frames.clear()
            holes.clear()

        for frame, hole in frames_and_holes(case, mask, dilate_px, checkpoint, chunk_frames, mask_rules):
            if hole.shape != frame.shape[:2]:
                raise ValueError(f"{case.case_id}: mask {hole.shape} does not match frame {frame.shape[:2]}")
            frames.append(frame)
            holes.append(hole)
            if progress:  # a chunk is read (and segmented) before it is written: a point to stop at
                progress(written)
            if len(frames) == chunk_frames:
                flush()
        flush()
    if unblend is not None:
        log.info("%s: %s", case.case_id, report.reason())
    return written
