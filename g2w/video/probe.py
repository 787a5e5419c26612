"""Probe a media file: geometry, rate, length, codec, rotation, and whether it decodes.

Probing reads container headers through PyAV and decodes one frame at the start and one near the
end. That catches the common damage cases (zero bytes, non-media, truncated uploads) at the cost
of two seeks, never a full decode.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from fractions import Fraction

import av

from g2w.io import storage
from g2w.types import VideoInfo
from g2w.video.errors import (
    CorruptVideoError,
    EmptyFileError,
    MissingFileError,
    NotMediaError,
    VideoError,
)

# Leading bytes of the containers gameplay video arrives in. When ffmpeg cannot open a file that
# starts like one of these, the file is a damaged video rather than something else entirely.
_CONTAINER_SIGNATURES = (
    (4, b"ftyp", "mp4/mov"),
    (0, b"\x1a\x45\xdf\xa3", "matroska/webm"),
    (0, b"RIFF", "avi"),
    (0, b"FLV", "flv"),
    (0, b"\x00\x00\x01\xba", "mpeg-ps"),
    (0, b"\x47", "mpeg-ts"),  # a sync byte that repeats every 188 bytes; checked below
)
_TS_PACKET = 188


def sniff_container(path: str) -> str | None:
    """The container family named by the file's leading bytes, or None if unrecognized."""
    head = storage.read_range(path, 0, _TS_PACKET + 1)
    for offset, magic, name in _CONTAINER_SIGNATURES:
        if head[offset : offset + len(magic)] != magic:
            continue
        if name == "mpeg-ts" and head[_TS_PACKET : _TS_PACKET + 1] != magic:
            continue
        return name
    return None


@contextlib.contextmanager
def open_media(path: str | os.PathLike) -> Iterator[av.container.InputContainer]:
    """Open a local file or URI for reading, mapping every failure to a typed VideoError.

    URIs are read through a seekable pyarrow file object, so nothing is downloaded whole.
    """
    path = os.fspath(path)
    if not storage.exists(path):
        raise MissingFileError(f"{path}: no such file")
    if storage.size(path) == 0:
        raise EmptyFileError(f"{path}: file is empty (0 bytes)")
    with contextlib.ExitStack() as stack:
        source = stack.enter_context(storage.open_binary(path)) if storage.is_uri(path) else path
        try:
            container = av.open(source, metadata_errors="ignore")
        except av.FFmpegError as exc:
            family = sniff_container(path)
            if family is None:
                raise NotMediaError(f"{path}: not a recognized media file ({exc})") from exc
            raise CorruptVideoError(
                f"{path}: looks like {family} but cannot be opened, likely truncated ({exc})"
            ) from exc
        with container:
            yield container


def _first_frame(container, stream):
    try:
        for frame in container.decode(stream):
            return frame
    except av.FFmpegError:
        return None
    return None


def _stream_duration_s(container, stream) -> float:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / av.time_base
    return 0.0


def _count_packets(container, stream) -> int:
    """Frame count for containers without one in the header (Matroska): demux, don't decode."""
    container.seek(0)
    return sum(1 for packet in container.demux(stream) if packet.size > 0)


def _tail_decodes(container, stream, duration_s: float) -> bool:
    """True when a frame near the end decodes: a truncated file fails here."""
    target_s = max(0.0, duration_s - 1.0)
    if target_s == 0.0 or stream.time_base is None:
        return True
    offset = int(Fraction(target_s).limit_denominator(1 << 20) / stream.time_base)
    try:
        container.seek(offset, stream=stream, any_frame=False, backward=True)
    except av.FFmpegError:
        return False
    return _first_frame(container, stream) is not None


def probe(path: str | os.PathLike, verify: bool = True) -> VideoInfo:
    """Describe a media file, or raise a VideoError saying why it cannot be used.

    A valid media file without video returns `has_video=False` rather than raising, so callers
    can tell "audio only" from "broken". With `verify`, a frame near the end is decoded too.
    """
    path = os.fspath(path)
    with open_media(path) as container:
        return _describe(path, container, verify)


def _describe(path: str, container, verify: bool) -> VideoInfo:
    try:
        if not container.streams.video:
            duration = container.duration / av.time_base if container.duration else 0.0
            return VideoInfo(path, False, 0, 0, 0.0, 0, duration, "", 0)
        stream = container.streams.video[0]
        first = _first_frame(container, stream)
        if first is None:
            raise CorruptVideoError(f"{path}: video stream has no decodable frame")
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        fps = float(rate) if rate else 0.0
        duration = _stream_duration_s(container, stream)
        frame_count = stream.frames or _count_packets(container, stream)
        if duration <= 0 and fps > 0:
            duration = frame_count / fps
        if verify and not _tail_decodes(container, stream, duration):
            raise CorruptVideoError(f"{path}: frames near the end do not decode, likely truncated")
        return VideoInfo(
            path=path,
            has_video=True,
            width=stream.codec_context.width,
            height=stream.codec_context.height,
            fps=fps,
            frame_count=int(frame_count),
            duration_s=float(duration),
            codec=stream.codec_context.name,
            rotation=int(first.rotation or 0),
        )
    except VideoError:
        raise
    except av.FFmpegError as exc:
        raise CorruptVideoError(f"{path}: {exc}") from exc
