"""Reading frames: a few by index or time (decord, seeking), or all in order (PyAV, streaming).

`FrameReader` is for sparse access, such as the central frame of every 5 s window: decord seeks
to the keyframe before each target and decodes forward from there, so cost follows the number of
frames asked for, not the file's length. `iter_frames` is for full passes: it holds one frame at
a time, so memory stays flat however long the video is.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import av
import cv2
import numpy as np

from g2w.video.errors import CorruptVideoError, NoVideoStreamError
from g2w.video.planes import luma_plane
from g2w.video.probe import open_media

# 8-bit formats whose first plane is luma, one byte per pixel: readable without conversion

# Frames whose presentation time lies within this of a requested time count as "at" it; it
# absorbs container timestamp rounding (mp4 tick grids rarely divide 1/fps exactly).
_TIME_EPS_S = 1e-3


class FrameReader:
    """Random access to a local video's frames, as RGB uint8 arrays of shape (n, H, W, 3).

    `width`/`height` ask decord to scale while decoding (both -1 keeps the source size). decord
    reads local files only; URIs are streamed with `iter_frames`.
    """

    def __init__(self, path: str | os.PathLike, width: int = -1, height: int = -1, threads: int = 0):
        import decord  # only readers that seek load decord's own FFmpeg build

        path = os.fspath(path)
        with open_media(path):  # typed errors for missing, empty and non-media files
            pass
        self._decord_error = decord.DECORDError
        try:
            self._vr = decord.VideoReader(path, ctx=decord.cpu(0), width=width, height=height, num_threads=threads)
        except decord.DECORDError as exc:
            raise CorruptVideoError(f"{path}: decord cannot open it ({exc})") from exc
        self.path = path
        self._starts: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._vr)

    @property
    def fps(self) -> float:
        return float(self._vr.get_avg_fps())

    def frame_starts(self) -> np.ndarray:
        """Presentation start time of every frame in seconds, from the index (no decoding)."""
        if self._starts is None:
            self._starts = self._vr.get_frame_timestamp(range(len(self)))[:, 0].astype(np.float64)
        return self._starts

    def index_at(self, times_s: Sequence[float]) -> np.ndarray:
        """Index of the frame on screen at each time: the last one starting at or before it."""
        starts = self.frame_starts()
        times = np.asarray(times_s, dtype=np.float64) + _TIME_EPS_S
        idx = np.searchsorted(starts, times, side="right") - 1
        return np.clip(idx, 0, len(starts) - 1)

    def read(self, indices: Sequence[int]) -> np.ndarray:
        """Frames at the given indices, in the order asked."""
        indices = [int(i) for i in indices]
        bad = [i for i in indices if not 0 <= i < len(self)]
        if bad:
            raise IndexError(f"{self.path}: frame indices {bad[:5]} outside 0..{len(self) - 1}")
        if not indices:
            return np.zeros((0, *self._vr[0].shape), np.uint8)
        order = np.argsort(indices, kind="stable")
        sorted_idx = [indices[i] for i in order]
        try:
            frames = self._vr.get_batch(sorted_idx).asnumpy()
        except self._decord_error as exc:
            raise CorruptVideoError(f"{self.path}: decoding frames failed ({exc})") from exc
        out = np.empty_like(frames)
        out[order] = frames
        return out

    def read_at(self, times_s: Sequence[float]) -> np.ndarray:
        """Frames on screen at the given times (seconds from the first frame)."""
        return self.read(self.index_at(times_s))


@dataclass(frozen=True)
class DecodedFrame:
    index: int
    time_s: float
    rgb: np.ndarray  # (H, W, 3) uint8


def luma(frame: av.VideoFrame, width: int, height: int) -> np.ndarray:
    """Full-range 8-bit luma at width x height: area-resized straight from the Y plane (several
    times cheaper than a colour conversion), or through swscale for other formats."""
    found = luma_plane(frame)
    if found is None:
        return frame.to_ndarray(format="gray", width=width, height=height)
    y, full_range = found
    if y.shape != (height, width):
        y = cv2.resize(y, (width, height), interpolation=cv2.INTER_AREA)
    if full_range:
        return np.ascontiguousarray(y)
    return cv2.convertScaleAbs(y, alpha=255 / 219, beta=-16 * 255 / 219)  # 16..235 -> 0..255


def iter_video_frames(
    path: str | os.PathLike, start_s: float = 0.0, end_s: float | None = None, threads: int = 0
) -> Iterator[tuple[int, float, av.VideoFrame]]:
    """Decoded frames in order from `start_s` up to (not including) `end_s`, unconverted.

    Yields (index, time_s, frame): `index` counts frames from the stream start by timestamp, so
    it is right after a seek too. Callers that look at only some frames convert only those,
    which is what keeps a full analysis pass close to raw decode speed. `threads=0` lets FFmpeg
    pick frame threads (fastest alone); a worker that owns N CPUs passes N (1 spends the least
    CPU per frame).
    """
    with open_media(path) as container:
        if not container.streams.video:
            raise NoVideoStreamError(f"{path}: no video stream")
        stream = container.streams.video[0]
        if threads:  # a cap: a task that owns N CPUs decodes on N threads
            stream.codec_context.thread_count = threads
        if threads != 1:
            stream.thread_type = "AUTO"
        rate = stream.average_rate or stream.guessed_rate
        fps = float(rate) if rate else 0.0
        origin = float(stream.start_time * stream.time_base) if stream.start_time else 0.0
        try:
            if start_s > 0:
                offset = int(Fraction(origin + start_s).limit_denominator(1 << 20) / stream.time_base)
                container.seek(offset, stream=stream, backward=True)
            count = 0
            for frame in container.decode(stream):
                t = float(frame.pts * stream.time_base) - origin if frame.pts is not None else count / fps
                count += 1
                if t + _TIME_EPS_S < start_s:
                    continue
                if end_s is not None and t + _TIME_EPS_S >= end_s:
                    break
                yield (int(round(t * fps)) if fps else count - 1), t, frame
        except av.FFmpegError as exc:
            raise CorruptVideoError(f"{path}: decoding stopped ({exc})") from exc


def iter_frames(
    path: str | os.PathLike,
    start_s: float = 0.0,
    end_s: float | None = None,
    width: int | None = None,
    height: int | None = None,
) -> Iterator[DecodedFrame]:
    """Decode frames in order from `start_s` up to (not including) `end_s`, one at a time, as RGB.

    Scaling to `width`x`height` happens in swscale while converting to RGB, so a pass at low
    resolution never holds a full-size RGB copy.
    """
    for index, t, frame in iter_video_frames(path, start_s, end_s):
        yield DecodedFrame(index, t, frame.to_ndarray(format="rgb24", width=width, height=height))
