"""Which inputs the service decodes at all, and what a clip may cost before anything is queued.

Containers come from an allow-list sniffed from the file's leading bytes, and the file is then
opened with that demuxer forced, so ffmpeg never probes for one itself: a playlist (HLS, DASH),
a concat list, an image sequence or anything that names other files or network URLs cannot be
opened, whatever it is called. The same check runs at admission and again on the worker before
decoding. Geometry, frame count and duration are read from the headers, before a frame is
decoded, so a tiny file that declares a huge picture or length is refused cheaply.
"""

from __future__ import annotations

import contextlib

import av

from g2w.io import storage
from g2w.video.probe import sniff_container
from serve.inputs import InputError

# Container family (as sniffed) -> the demuxer forced open and the file suffix the upload is stored under.
ALLOWED = {
    "mp4/mov": ("mov", ".mp4"),
    "matroska/webm": ("matroska", ".mkv"),
    "avi": ("avi", ".avi"),
    "mpeg-ts": ("mpegts", ".ts"),
    "flv": ("flv", ".flv"),
}
MEDIA_TYPES = {
    ".mp4": "video/mp4",
    ".mkv": "video/x-matroska",
    ".avi": "video/x-msvideo",
    ".ts": "video/mp2t",
    ".flv": "video/x-flv",
}


def container_of(path: str) -> str:
    """The allowed family of `path`, else InputError(415); the message never names the path."""
    try:
        family = sniff_container(path)
    except OSError as exc:
        raise InputError(415, "not_video_unreadable", "the input cannot be read") from exc
    if family not in ALLOWED:
        raise InputError(
            415,
            "container_not_allowed",
            f"the input is not one of the allowed containers {sorted(ALLOWED)} "
            "(playlists, concat lists, image sequences and network inputs are refused)",
        )
    return family


@contextlib.contextmanager
def open_allowed(path: str):
    """`path` opened with its allowed demuxer forced (no format probing, no nested inputs)."""
    demuxer = ALLOWED[container_of(path)][0]
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(storage.open_binary(path)) if storage.is_uri(path) else path
        try:
            container = stack.enter_context(av.open(source, format=demuxer, metadata_errors="ignore"))
        except (av.FFmpegError, OSError) as exc:
            raise InputError(415, "not_video_corrupt", f"the input does not open as {demuxer}") from exc
        yield container


def check_cost(path: str, max_pixels: int, max_frames: int, max_duration_s: float) -> dict:
    """Geometry and length from the headers, each checked against its limit (413) before decoding."""
    with open_allowed(path) as container:
        if not container.streams.video:
            raise InputError(415, "not_video_no_video_stream", "the input has no video stream")
        stream = container.streams.video[0]
        width, height = stream.codec_context.width, stream.codec_context.height
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        duration = (
            float(stream.duration * stream.time_base)
            if stream.duration and stream.time_base
            else (container.duration or 0) / av.time_base
        )
        declared = int(stream.frames or 0) or int(duration * float(rate or 0))
    if width * height > max_pixels:
        raise InputError(413, "too_many_pixels", f"{width}x{height} is over the limit of {max_pixels} pixels")
    if duration > max_duration_s:
        raise InputError(413, "too_long", f"{duration:.1f} s is over the limit of {max_duration_s:g} s")
    if declared > max_frames:
        raise InputError(413, "too_many_frames", f"{declared} frames is over the limit of {max_frames}")
    return {"width": width, "height": height, "duration_s": duration, "frames": declared}
