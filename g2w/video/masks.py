"""Lossless per-frame masks: FFV1 8-bit gray in Matroska, bit-exact on read-back.

Masks are (H, W) uint8 arrays; a binary UI mask uses 0 and 255, but any 8-bit label map
round-trips exactly. Any size works, odd ones included (no chroma subsampling).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from fractions import Fraction

import av
import numpy as np

from g2w.video.encode import StreamFile, exact_rate
from g2w.video.errors import CorruptVideoError, NoVideoStreamError
from g2w.video.probe import open_media


class MaskWriter(StreamFile):
    def __init__(self, path: str | os.PathLike, width: int, height: int, fps: float | Fraction):
        if not os.fspath(path).endswith(".mkv"):
            raise ValueError(f"masks are stored as FFV1 in Matroska: use a .mkv path, not {path}")
        super().__init__(path, "ffv1", exact_rate(fps), width, height, "gray")
        self._stream.options = {"level": "3", "slicecrc": "1"}

    def write(self, mask: np.ndarray) -> None:
        if mask.shape != (self.height, self.width) or mask.dtype != np.uint8:
            raise ValueError(f"expected uint8 mask of shape {(self.height, self.width)}, got {mask.dtype} {mask.shape}")
        self._write_array(mask, "gray")


def iter_masks(path: str | os.PathLike) -> Iterator[np.ndarray]:
    """Masks in frame order, one (H, W) uint8 array at a time."""
    with open_media(path) as container:
        if not container.streams.video:
            raise NoVideoStreamError(f"{path}: no video stream")
        try:
            for frame in container.decode(container.streams.video[0]):
                yield frame.to_ndarray(format="gray")
        except av.FFmpegError as exc:
            raise CorruptVideoError(f"{path}: decoding masks failed ({exc})") from exc


def read_masks(path: str | os.PathLike) -> np.ndarray:
    """All masks as one (T, H, W) uint8 array; for short clips (a 5 s 720p clip is 138 MB)."""
    return np.stack(list(iter_masks(path)))
