"""Timestamp alignment between a source video and its edit (Appendix J.1).

Frames are compared by physical time, never by equal frame index: an edit may come back at a
different rate or length (a 16 fps, 81-frame output of a 30 fps, 150-frame source). Evaluation
samples the source timeline at 2 FPS, t_k = k / 2, and maps each t_k into both videos:

    i_s(k) = round(t_k * f_s)                    (source)
    i_e(k) = min(N_e - 1, round(t_k * f_e))      (edit)

`round` is half-up (floor(x + 0.5)), the usual mathematical convention, not Python's
banker's rounding; the two differ only when t_k * f lands exactly on .5 (25 fps, 2 FPS: 12.5).
A timestamp belongs to the source when i_s(k) is a real frame (< N_s).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

EVAL_FPS = 2.0
# An edit may end this much before the last evaluation timestamp (container rounding) before
# the case fails.
END_TOLERANCE_S = 0.05


def round_half_up(x: float) -> int:
    # The epsilon absorbs float error in t_k * f (e.g. 0.5 * 29.97 is exact enough, but
    # 3 * (1/3) style products can land a hair below .5).
    return math.floor(x + 0.5 + 1e-9)


@dataclass(frozen=True)
class AlignedSample:
    """One evaluation timestamp: its id, time and the frame index in each video."""

    k: int
    sample_id: str
    t: float
    source_index: int
    edited_index: int


def sample_id(k: int) -> str:
    return f"f{k:04d}"


def eval_times(source_frames: int, source_fps: float, eval_fps: float = EVAL_FPS) -> list[float]:
    """t_k = k / eval_fps for every k whose source index is a real frame."""
    if source_frames <= 0 or source_fps <= 0:
        return []
    times = []
    k = 0
    while round_half_up(k / eval_fps * source_fps) <= source_frames - 1:
        times.append(k / eval_fps)
        k += 1
    return times


def source_indices(times: list[float], source_fps: float) -> list[int]:
    return [round_half_up(t * source_fps) for t in times]


def edited_indices(times: list[float], edited_fps: float, edited_frames: int) -> list[int]:
    return [min(edited_frames - 1, round_half_up(t * edited_fps)) for t in times]


def align(
    source_frames: int, source_fps: float, edited_frames: int, edited_fps: float, eval_fps: float = EVAL_FPS
) -> list[AlignedSample]:
    """The aligned samples of a (source, edit) pair; assumes both passed validation."""
    times = eval_times(source_frames, source_fps, eval_fps)
    src = source_indices(times, source_fps)
    edt = edited_indices(times, edited_fps, edited_frames)
    return [AlignedSample(k, sample_id(k), t, s, e) for k, (t, s, e) in enumerate(zip(times, src, edt))]


def edit_too_short(
    source_frames: int, source_fps: float, edited_frames: int, edited_fps: float, eval_fps: float = EVAL_FPS
) -> tuple[bool, float, float]:
    """(fails, edited duration, final timestamp): an edit fails when it ends more than
    END_TOLERANCE_S before the last evaluation timestamp."""
    times = eval_times(source_frames, source_fps, eval_fps)
    last = times[-1] if times else 0.0
    duration = edited_frames / edited_fps if edited_fps > 0 else 0.0
    return duration < last - END_TOLERANCE_S, duration, last
