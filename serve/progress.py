"""Progress and cooperative cancel for a running job, as one hook a method calls (no Ray here).

A method that takes `progress` (see g2w.remove) calls it with the frames written so far, often.
`ProgressHook` forwards that to `report(frames) -> canceled` at most every `interval_s` (the
worker sends it to the ingress, which records it in the job and answers whether the job was
canceled meanwhile); when it was, the hook raises `JobCanceled` inside the method, whose writer
then discards its partial output, and the replica is free for the next job. `heartbeat` reports
on a timer too, which renews the job's lease (serve/store.py) while the method works.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

REPORT_INTERVAL_S = 0.5


class JobCanceled(Exception):
    """Raised through a running method when its job was canceled; carries the frames it had done."""

    def __init__(self, frames: int):
        super().__init__(f"canceled after {frames} frames")
        self.frames = frames


class ProgressHook:
    """Throttles progress reports and turns a 'canceled' answer into `JobCanceled`."""

    def __init__(
        self,
        report: Callable[[int], bool],
        interval_s: float = REPORT_INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.report, self.interval_s, self.clock = report, interval_s, clock
        self.frames = 0
        self.stop_heard = False  # a heartbeat's report was answered "stop"
        self._last = float("-inf")

    def beat(self) -> None:
        """Report the frames so far now (the worker's heartbeat, which renews the job's lease);
        a "stop" answer is raised at the method's next progress call."""
        if self.report(self.frames):
            self.stop_heard = True

    def __call__(self, frames: int) -> None:
        self.frames = max(self.frames, int(frames))
        if self.stop_heard:
            raise JobCanceled(self.frames)
        now = self.clock()
        if now - self._last < self.interval_s:
            return
        self._last = now
        if self.report(self.frames):
            raise JobCanceled(self.frames)


@contextmanager
def heartbeat(hook: ProgressHook, interval_s: float) -> Iterator[None]:
    """While the block runs, `hook.beat()` every `interval_s` from a thread of its own, so a job's
    lease is renewed even by a method that never reports progress."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(interval_s):
            hook.beat()

    thread = threading.Thread(target=beat, name="g2w-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
