"""Checks that make a (source, edit, annotation) comparison meaningful (Appendix J.1).

Before any frame is sampled, the evaluator confirms that dimensions, frame rates, frame counts
and durations fit together. A failure is a recorded reason, not an exception: an edit that
came back truncated or at the wrong aspect ratio is a failed case of that method, scored as
such, while the job carries on with the next case.
"""

from __future__ import annotations

from dataclasses import dataclass

from g2w.evaluate.align import EVAL_FPS, edit_too_short
from g2w.types import VideoInfo

MAX_ASPECT_DIFF = 0.01
# Two frame rates are "the same" within this relative difference (29.97 stored as 30000/1001
# and written as 29.97 in JSON must agree).
FPS_REL_TOL = 1e-3


@dataclass(frozen=True)
class Geometry:
    """The few numbers validation needs about a video or an annotation canvas."""

    width: int
    height: int
    fps: float
    frame_count: int

    @classmethod
    def of(cls, info: VideoInfo) -> Geometry:
        return cls(int(info.width), int(info.height), float(info.fps), int(info.frame_count))

    @property
    def aspect(self) -> float:
        return self.width / self.height

    @property
    def duration_s(self) -> float:
        return self.frame_count / self.fps

    def usable(self) -> bool:
        return self.width > 0 and self.height > 0 and self.fps > 0 and self.frame_count > 0


class CaseInvalid(Exception):
    """A comparison that cannot be made; `reason` is a short code for manifests and metrics.

    `method_fault` tells a problem with the edit (the removal method's output) from one with
    the case itself (its source or annotation), which is the benchmark's problem instead.
    """

    def __init__(self, reason: str, message: str, method_fault: bool):
        super().__init__(message)
        self.reason = reason
        self.method_fault = method_fault


def _same_fps(a: float, b: float) -> bool:
    return abs(a - b) <= FPS_REL_TOL * max(a, b)


def check_source(source: Geometry, annotation: Geometry) -> None:
    """The annotation must describe this source: same timeline, same shape of canvas."""
    if not source.usable():
        raise CaseInvalid("bad_source", f"source has no usable geometry: {source}", method_fault=False)
    if not annotation.usable():
        raise CaseInvalid("bad_annotation", f"annotation header is incomplete: {annotation}", method_fault=False)
    if abs(annotation.aspect - source.aspect) > MAX_ASPECT_DIFF:
        raise CaseInvalid(
            "annotation_geometry",
            f"annotation canvas {annotation.width}x{annotation.height} "
            f"does not match source {source.width}x{source.height}",
            method_fault=False,
        )
    if not _same_fps(annotation.fps, source.fps) or annotation.frame_count != source.frame_count:
        raise CaseInvalid(
            "annotation_timeline",
            f"annotation says {annotation.frame_count} frames at "
            f"{annotation.fps:g} fps, source has {source.frame_count} at {source.fps:g}",
            method_fault=False,
        )


def check_edit(source: Geometry, edited: Geometry, eval_fps: float = EVAL_FPS) -> dict:
    """Raise CaseInvalid when the edit cannot be compared with the source; else return the
    measurements (kept in the judgment record)."""
    if not edited.usable():
        raise CaseInvalid("bad_edited", f"edited video has no usable geometry: {edited}", method_fault=True)
    aspect_diff = abs(edited.aspect - source.aspect)
    if aspect_diff > MAX_ASPECT_DIFF:
        raise CaseInvalid(
            "aspect_mismatch",
            f"edited {edited.width}x{edited.height} vs source "
            f"{source.width}x{source.height}: aspect differs by {aspect_diff:.4f} "
            f"(> {MAX_ASPECT_DIFF})",
            method_fault=True,
        )
    short, duration, last = edit_too_short(source.frame_count, source.fps, edited.frame_count, edited.fps, eval_fps)
    if short:
        raise CaseInvalid(
            "edited_too_short",
            f"edited video lasts {duration:.3f} s but the last evaluation timestamp is {last:.3f} s",
            method_fault=True,
        )
    return {
        "source": [source.width, source.height, round(source.fps, 6), source.frame_count],
        "edited": [edited.width, edited.height, round(edited.fps, 6), edited.frame_count],
        "aspect_diff": round(aspect_diff, 6),
        "edited_duration_s": round(duration, 6),
        "last_timestamp_s": last,
    }
