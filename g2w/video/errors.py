"""Typed errors for unreadable media, each with a short machine-readable `reason`.

Jobs turn these into per-item error rows (`reason` goes in the manifest) instead of crashing.
"""


class VideoError(Exception):
    """Base class: the file cannot be used as a video."""

    reason = "video_error"


class MissingFileError(VideoError):
    reason = "missing_file"


class EmptyFileError(VideoError):
    reason = "empty_file"


class NotMediaError(VideoError):
    """The bytes are not any media container ffmpeg recognizes (a text file, say)."""

    reason = "not_media"


class CorruptVideoError(VideoError):
    """A recognized container whose video cannot be decoded: truncated or damaged."""

    reason = "corrupt"


class NoVideoStreamError(VideoError):
    """A valid media file without a video stream (audio only, say)."""

    reason = "no_video_stream"
