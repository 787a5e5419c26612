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


@dataclass(frozen=True)
class Box:
    """An integer, half-open pixel box [x1, y1, x2, y2]: width is x2 - x1. Empty when x2 <= x1
    or y2 <= y1; empty boxes have zero area and intersect nothing."""

    x1: int
    y1: int
    x2: int
    y2: int

    @classmethod
    def from_xywh(cls, x: int, y: int, w: int, h: int) -> Box:
        return cls(int(x), int(y), int(x) + int(w), int(y) + int(h))

    @classmethod
    def from_list(cls, xyxy) -> Box:
        x1, y1, x2, y2 = (int(v) for v in xyxy)
        return cls(x1, y1, x2, y2)

    @property
    def width(self) -> int:
        return max(0, self.x2 - self.x1)

    @property
    def height(self) -> int:
        return max(0, self.y2 - self.y1)

    @property
    def area(self) -> int:
        return self.width * self.height

    @property
    def empty(self) -> bool:
        return self.area == 0

    def intersect(self, other: Box) -> Box:
        return Box(max(self.x1, other.x1), max(self.y1, other.y1), min(self.x2, other.x2), min(self.y2, other.y2))

    def union(self, other: Box) -> Box:
        """The smallest box holding both (an empty box adds nothing)."""
        if self.empty:
            return other
        if other.empty:
            return self
        return Box(min(self.x1, other.x1), min(self.y1, other.y1), max(self.x2, other.x2), max(self.y2, other.y2))

    def shift(self, dx: int, dy: int) -> Box:
        return Box(self.x1 + dx, self.y1 + dy, self.x2 + dx, self.y2 + dy)

    def expand(self, px: int, py: int | None = None) -> Box:
        py = px if py is None else py
        return Box(self.x1 - px, self.y1 - py, self.x2 + px, self.y2 + py)

    def clip(self, width: int, height: int) -> Box:
        return self.intersect(Box(0, 0, width, height))

    def to_list(self) -> list[int]:
        return [self.x1, self.y1, self.x2, self.y2]
