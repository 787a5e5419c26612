"""I420 (planar Y'CbCr 4:2:0, limited range) frames as numpy arrays: planes, matrices, conversions.

An I420 frame is the (3h/2, w) uint8 layout OpenCV and PyAV use: the Y plane in rows 0..h, then
the Cb plane and the Cr plane, each (h/2, w/2), one after the other in the remaining rows.
PyAV's `VideoFrame.to_ndarray()` of a yuv420p frame returns it, and `from_ndarray(a, "yuv420p")`
takes it back, so a decoded frame can be encoded again without any colour conversion.
"""

from __future__ import annotations

import av
import cv2
import numpy as np

# (Kr, Kb) of the two matrices 8-bit video uses in practice
MATRICES = {"bt601": (0.299, 0.114), "bt709": (0.2126, 0.0722)}
_JPEG_RANGE = 2  # AVCOL_RANGE_JPEG
_BT709 = 1  # AVCOL_SPC_BT709


def ycbcr_matrix(matrix: str) -> np.ndarray:
    """RGB (0-255) -> limited-range Y'CbCr, as one affine (3, 4) float32 matrix."""
    kr, kb = MATRICES[matrix]
    kg = 1 - kr - kb
    return np.array(
        [
            [219 / 255 * kr, 219 / 255 * kg, 219 / 255 * kb, 16.0],
            [-112 / 255 * kr / (1 - kb), -112 / 255 * kg / (1 - kb), 112 / 255, 128.0],
            [112 / 255, -112 / 255 * kg / (1 - kr), -112 / 255 * kb / (1 - kr), 128.0],
        ],
        np.float32,
    )


def planes(i420: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Views of the Y, Cb and Cr planes of a contiguous (3h/2, w) I420 array."""
    h, w = i420.shape[0] * 2 // 3, i420.shape[1]
    tail = i420[h:].reshape(-1)
    quarter = (h // 2) * (w // 2)
    return i420[:h], tail[:quarter].reshape(h // 2, w // 2), tail[quarter:].reshape(h // 2, w // 2)


def rgb_to_i420(rgb: np.ndarray, matrix: str = "bt601") -> np.ndarray:
    """(h, w, 3) RGB with even h and w -> (3h/2, w) limited-range I420, chroma averaged per 2x2."""
    h, w = rgb.shape[:2]
    ycc = cv2.transform(rgb.astype(np.float32), ycbcr_matrix(matrix))
    out = np.empty((h * 3 // 2, w), np.uint8)
    y, cb, cr = planes(out)
    y[:] = np.clip(np.rint(ycc[..., 0]), 0, 255)
    chroma = cv2.resize(ycc[..., 1:], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    cb[:] = np.clip(np.rint(chroma[..., 0]), 0, 255)
    cr[:] = np.clip(np.rint(chroma[..., 1]), 0, 255)
    return out


def i420_to_rgb(i420: np.ndarray, matrix: str = "bt601") -> np.ndarray:
    """(3h/2, w) limited-range I420 -> (h, w, 3) RGB, each chroma sample spread over its 2x2 block."""
    y, cb, cr = planes(i420)
    h, w = y.shape
    ycc = np.empty((h, w, 3), np.float32)
    ycc[..., 0] = y
    ycc[..., 1] = cv2.resize(cb, (w, h), interpolation=cv2.INTER_NEAREST)
    ycc[..., 2] = cv2.resize(cr, (w, h), interpolation=cv2.INTER_NEAREST)
    forward = ycbcr_matrix(matrix)
    inverse = np.linalg.inv(forward[:, :3]).astype(np.float32)
    rgb = cv2.transform(ycc - forward[:, 3], inverse)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


def passthrough_matrix(frame: av.VideoFrame) -> str | None:
    """ "bt709" or "bt601" for a limited-range yuv420p frame, whose planes can be encoded as they
    are; None for any other format or range (those go through RGB)."""
    if frame.format.name != "yuv420p" or frame.color_range == _JPEG_RANGE:
        return None
    return "bt709" if frame.colorspace == _BT709 else "bt601"


def frame_i420(frame: av.VideoFrame, width: int, height: int, matrix: str) -> np.ndarray:
    """The frame's top-left width x height (both even) as a (3h/2, w) I420 array in `matrix`: a
    copy of its own planes when it is limited-range yuv420p of that size and matrix, else
    converted (swscale to RGB, then `rgb_to_i420`)."""
    if (frame.width, frame.height) == (width, height) and passthrough_matrix(frame) == matrix:
        return frame.to_ndarray()
    rgb = frame.to_ndarray(format="rgb24")[:height, :width]
    return rgb_to_i420(np.ascontiguousarray(rgb), matrix)
