"""Plain dataclasses passed between steps and written to manifests."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class VideoInfo:
    """What a cheap look at a media file tells: enough to plan windows and decoding.

    `fps` is the average frame rate; `rotation` is the display-matrix rotation in degrees,
    counter-clockwise, which decoders do not apply to the pixels they return.
    """

    path: str
    has_video: bool
    width: int
    height: int
    fps: float
    frame_count: int
    duration_s: float
    codec: str
    rotation: int

    def to_dict(self) -> dict:
        return asdict(self)
