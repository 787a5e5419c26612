"""Reading a decoded frame's 8-bit planes in place, without a colour conversion.

Decoders hand most game captures over as planar 8-bit YUV; reading the Y, U and V planes
directly is several times cheaper than converting to RGB, which is what every per-frame cue
(cut thumbnails, crosshair colour, full-resolution luma) needs. Every such reader goes through
here, so the formats that allow it are listed once.
"""

from __future__ import annotations

import av
import numpy as np

PLANAR_YUV = {"yuv420p", "yuvj420p", "yuv422p", "yuvj422p", "yuv444p", "yuvj444p"}
Y8_FORMATS = PLANAR_YUV | {"nv12", "nv21", "gray"}  # a first plane that is 8-bit luma
_FULL_RANGE_FORMATS = {"yuvj420p", "yuvj422p", "yuvj444p", "gray"}
_JPEG_RANGE = 2  # AVCOL_RANGE_JPEG


def plane_view(plane: av.video.plane.VideoPlane) -> np.ndarray:
    """(height, width) uint8 view of one 8-bit plane, its row padding cut off."""
    return np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, : plane.width]


def is_planar_yuv(frame: av.VideoFrame) -> bool:
    return frame.format.name in PLANAR_YUV


def luma_plane(frame: av.VideoFrame) -> tuple[np.ndarray, bool] | None:
    """(a view of the decoded Y plane, whether it is full range), or None when the frame's
    format has no 8-bit luma plane to read directly."""
    if frame.format.name not in Y8_FORMATS:
        return None
    return plane_view(frame.planes[0]), frame.format.name in _FULL_RANGE_FORMATS or frame.color_range == _JPEG_RANGE
