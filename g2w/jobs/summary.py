"""The item counts every batch job's summary carries, and the one exit status read from them.

Bad input never fails a run: each item that fails is a row with its reason in the job's manifest.
A run fails (exit 1) only when nothing came out of it: no item ended `ok`, whether every item failed
or there were none. Every command and Ray job entrypoint reads its status through `exit_status`, so
they agree (docs/formats.md, "Exit status").
"""

from __future__ import annotations

from typing import TypedDict


class ItemCounts(TypedDict):
    """Items that ended ok and items that ended in an error (other outcomes are counted beside)."""

    ok: int
    error: int


class RemoveSummary(ItemCounts):
    method: str
    cases: int
    skipped: int
    errors_by_reason: dict[str, int]
    frames_written: int
    frames_per_worker_s: float | None
    seconds: float


class DetectSummary(ItemCounts):
    videos: int
    skipped: int
    errors_by_reason: dict[str, int]
    frames: int
    frames_per_worker_s: float | None
    checkpoint: str
    seconds: float
    cases: str


class CaptureSummary(ItemCounts):
    games: dict[str, dict]
    clips: int
    rejected: int
    cases: int
    clean_clips: int
    bytes: int
    seconds: float
    duration_s: float
    size: str
    fps: int
    seed: int


class CaptionSummary(ItemCounts):
    segments: int
    invalid: int
    reasons: dict[str, int]


def exit_status(summary: ItemCounts) -> int:
    """0 when at least one item ended ok, else 1."""
    return 0 if summary["ok"] > 0 else 1
