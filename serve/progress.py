"""Progress and cooperative cancel for a running job, as one hook a method calls (no Ray here).

A method that takes `progress` (see g2w.remove) calls it with the frames written so far, often.
`ProgressHook` forwards that to `report(frames) -> canceled` at most every `interval_s` (the
worker sends it to the ingress, which records it in the job and answers whether the job was
canceled meanwhile); when it was, the hook raises `JobCanceled` inside the method, whose writer
then discards its partial output, and the replica is free for the next job.
"""

from __future__ import annotations

import time
from collections.abc import Callable

REPORT_INTERVAL_S = 0.5


class JobCanceled(Exception):
    """Raised through a running method when its job was canceled; carries the frames it had done."""

    def __init__(self, frames: int):
        super().__init__(f"canceled after {frames} frames")
        self.frames = frames


class ProgressHook:
    """Throttles progress reports and turns a 'canceled' answer into `JobCanceled`."""

    def __init__(self, report: Callable[[int], bool], interval_s: float = REPORT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic):
        self.report, self.interval_s, self.clock = report, interval_s, clock
        self.frames = 0
        self._last = float("-inf")

    def __call__(self, frames: int) -> None:
        self.frames = max(self.frames, int(frames))
        now = self.clock()
        if now - self._last < self.interval_s:
            return
        self._last = now
        if self.report(self.frames):
            raise JobCanceled(self.frames)
