"""Video I/O: probe, sparse and streaming decode, H.264 and lossless mask writing."""

import av

from g2w.video.decode import DecodedFrame, FrameReader, iter_frames, iter_video_frames
from g2w.video.encode import VideoWriter, nvenc_available
from g2w.video.errors import (
    CorruptVideoError,
    EmptyFileError,
    MissingFileError,
    NotMediaError,
    NoVideoStreamError,
    VideoError,
)
from g2w.video.masks import MaskWriter, iter_masks, read_masks
from g2w.video.probe import probe

# FFmpeg's own log lines about damaged input would otherwise reach the terminal; the damage is
# reported through typed errors instead.
av.logging.set_level(None)

__all__ = [
    "CorruptVideoError",
    "DecodedFrame",
    "EmptyFileError",
    "FrameReader",
    "MaskWriter",
    "MissingFileError",
    "NoVideoStreamError",
    "NotMediaError",
    "VideoError",
    "VideoWriter",
    "iter_frames",
    "iter_masks",
    "iter_video_frames",
    "nvenc_available",
    "probe",
    "read_masks",
]
