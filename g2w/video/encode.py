"""H.264 writing through PyAV: libx264 by default, NVENC when asked for and present.

Every frame gets pts = its index in a 1/fps time base, so the output has exactly the frames
written at exactly the rate asked for (no encoder-side duplication or dropping).
"""

from __future__ import annotations

import functools
import os
from fractions import Fraction

import av
import cv2
import numpy as np

# libx264 preset names mapped to NVENC's p1 (fastest) .. p7 (best).
_NVENC_PRESETS = {
    "ultrafast": "p1",
    "superfast": "p1",
    "veryfast": "p2",
    "faster": "p3",
    "fast": "p4",
    "medium": "p4",
    "slow": "p5",
    "slower": "p6",
    "veryslow": "p7",
}


_NTSC_BASES = (24, 30, 48, 60, 120, 240)
_BT709, _LIMITED_RANGE = 1, 1  # FFmpeg's AVCOL_* codes for BT.709 and MPEG (limited) range
_KR, _KB = 0.2126, 0.0722
# RGB (0-255) -> limited-range Y'CbCr with BT.709 coefficients, as one affine 3x4 matrix.
_RGB_TO_YCBCR_709 = np.array(
    [
        [219 / 255 * _KR, 219 / 255 * (1 - _KR - _KB), 219 / 255 * _KB, 16.0],
        [-224 / 255 * _KR / (2 - 2 * _KB), -224 / 255 * (1 - _KR - _KB) / (2 - 2 * _KB), 112 / 255, 128.0],
        [112 / 255, -224 / 255 * (1 - _KR - _KB) / (2 - 2 * _KR), -224 / 255 * _KB / (2 - 2 * _KR), 128.0],
    ],
    np.float32,
)


def rgb_to_i420_bt709(rgb: np.ndarray) -> np.ndarray:
    """(h, w, 3) RGB -> the (3h/2, w) I420 layout OpenCV uses, with BT.709 coefficients and
    chroma averaged over each 2x2 block."""
    h, w = rgb.shape[:2]
    ycc = cv2.transform(rgb, _RGB_TO_YCBCR_709)
    chroma = cv2.resize(ycc[:, :, 1:], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    out = np.empty((h * 3 // 2, w), np.uint8)
    out[:h] = ycc[:, :, 0]
    tail = out[h:].reshape(-1)
    tail[: w * h // 4] = chroma[:, :, 0].ravel()
    tail[w * h // 4 :] = chroma[:, :, 1].ravel()
    return out


def exact_rate(fps: float | Fraction) -> Fraction:
    """A frame rate as a fraction: 30 -> 30/1; 29.97 (however rounded) -> 30000/1001."""
    for base in _NTSC_BASES:
        ntsc = Fraction(base * 1000, 1001)
        if abs(float(fps) - float(ntsc)) < 0.005:
            return ntsc
    return Fraction(fps).limit_denominator(1001)


@functools.cache
def nvenc_available() -> bool:
    """True when h264_nvenc is compiled in and a GPU encoder session can actually open."""
    if "h264_nvenc" not in av.codec.codecs_available:
        return False
    try:
        ctx = av.CodecContext.create("h264_nvenc", "w")
        ctx.width, ctx.height, ctx.pix_fmt = 256, 256, "yuv420p"
        ctx.time_base = Fraction(1, 30)
        ctx.open()
        ctx.close()
    except Exception:  # any failure (no driver, no device, no NVENC engine) means "not usable"
        return False
    return True


def choose_encoder(encoder: str) -> str:
    """Resolve "auto" | "libx264" | "nvenc" to an FFmpeg encoder name."""
    if encoder == "libx264":
        return "libx264"
    if encoder == "nvenc":
        if not nvenc_available():
            raise RuntimeError("h264_nvenc was asked for but no NVENC-capable GPU is usable here")
        return "h264_nvenc"
    if encoder == "auto":
        return "h264_nvenc" if nvenc_available() else "libx264"
    raise ValueError(f"unknown encoder {encoder!r}: use auto, libx264 or nvenc")


class StreamFile:
    """One video stream written to a temporary name and renamed into place on `close()`.

    A crash or kill leaves only a hidden `.partial` file, never a truncated file under the real
    name, so resumable jobs can trust that an existing output is complete.
    """

    def __init__(self, path: str | os.PathLike, codec: str, rate: Fraction, width: int, height: int, pix_fmt: str):
        self.path = os.fspath(path)
        head, name = os.path.split(self.path)
        stem, ext = os.path.splitext(name)
        self._tmp_path = os.path.join(head, f".{stem}.partial{ext}")
        self.width, self.height, self.rate = width, height, rate
        self.frames_written = 0
        # mp4: index at the front, so readers can start (and seek) before the whole file arrives
        options = {"movflags": "+faststart"} if ext in (".mp4", ".mov", ".m4v") else {}
        self._container = av.open(self._tmp_path, "w", options=options)
        self._stream = self._container.add_stream(codec, rate=rate)
        self._stream.width, self._stream.height, self._stream.pix_fmt = width, height, pix_fmt
        self._stream.codec_context.time_base = 1 / rate

    def _write_array(self, array: np.ndarray, fmt: str) -> None:
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(array), format=fmt)
        frame.pts = self.frames_written
        frame.time_base = self._stream.codec_context.time_base
        self._container.mux(self._stream.encode(frame))
        self.frames_written += 1

    def close(self) -> int:
        """Flush, finish the file and move it into place; returns the number of frames written."""
        if self._container is not None:
            self._container.mux(self._stream.encode(None))
            self._container.close()
            self._container = None
            os.replace(self._tmp_path, self.path)
        return self.frames_written

    def abort(self) -> None:
        """Drop a file that will not be finished."""
        if self._container is not None:
            try:
                self._container.close()
            except av.FFmpegError:
                pass
            self._container = None
        if os.path.exists(self._tmp_path):
            os.remove(self._tmp_path)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class VideoWriter(StreamFile):
    """Write RGB uint8 frames of one fixed size to an H.264 yuv420p .mp4 (or .mkv).

    crf is libx264's constant rate factor (NVENC's constant quality `cq` takes the same value);
    `gop` is the keyframe interval in frames (default: 2 s), which bounds seek cost for readers.
    `threads` caps the encoder's threads (0: one per core of the machine, x264's default, which
    oversubscribes a node where many one-CPU tasks encode at once).
    `bt709` converts with the BT.709 matrix and tags the stream so (primaries, transfer, matrix,
    limited range), as HD video is expected to be; otherwise BT.601, untagged, which decoders
    assume for untagged video.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        width: int,
        height: int,
        fps: float | Fraction,
        crf: int = 18,
        preset: str = "medium",
        encoder: str = "libx264",
        gop: int | None = None,
        threads: int = 0,
        bt709: bool = False,
    ):
        if width % 2 or height % 2:
            raise ValueError(f"yuv420p needs even dimensions, got {width}x{height}")
        self.codec = choose_encoder(encoder)
        rate = exact_rate(fps)
        super().__init__(path, self.codec, rate, width, height, "yuv420p")
        ctx = self._stream.codec_context
        ctx.gop_size = gop or max(1, round(2 * float(rate)))
        if threads:
            ctx.thread_count = threads
        if self.codec == "libx264":
            # PyAV asks for slice threads by default, which x264 runs far slower than the frame
            # threads the ffmpeg command line uses; AUTO gives x264 its frame threads
            ctx.thread_type = "AUTO"
            self._stream.options = {"crf": str(crf), "preset": preset}
        else:
            self._stream.options = {"rc": "vbr", "cq": str(crf), "preset": _NVENC_PRESETS.get(preset, preset)}
        self.bt709 = bt709
        if bt709:
            ctx.colorspace = ctx.color_primaries = ctx.color_trc = _BT709
            ctx.color_range = _LIMITED_RANGE

    def write(self, rgb: np.ndarray) -> None:
        if rgb.shape != (self.height, self.width, 3) or rgb.dtype != np.uint8:
            raise ValueError(
                f"expected uint8 frame of shape {(self.height, self.width, 3)}, got {rgb.dtype} {rgb.shape}"
            )
        if self.bt709:
            self._write_array(rgb_to_i420_bt709(rgb), "yuv420p")
            return
        # OpenCV's BT.601 limited-range I420 conversion matches swscale's default to within
        # rounding and runs several times faster, which matters at 720p and up.
        self._write_array(cv2.cvtColor(rgb, cv2.COLOR_RGB2YUV_I420), "yuv420p")

    def write_i420(self, i420: np.ndarray) -> None:
        """Encode a (3h/2, w) I420 frame (`g2w.video.yuv`) as it is, with no colour conversion:
        its matrix must be the one the stream is tagged with (BT.709 when `bt709`, else BT.601)."""
        if i420.shape != (self.height * 3 // 2, self.width) or i420.dtype != np.uint8:
            raise ValueError(
                f"expected uint8 I420 frame of shape {(self.height * 3 // 2, self.width)}, got {i420.dtype} {i420.shape}"
            )
        self._write_array(i420, "yuv420p")
