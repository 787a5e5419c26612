"""Progress and cooperative cancel for a running job, as one hook a method calls (no Ray here).

A method that takes `progress` (see g2w.remove) calls it with the frames written so far, often.
`ProgressHook` forwards that to `report(frames) -> canceled` at most every `interval_s` (the
worker sends it to the ingress, which records it in the job and answers whether the job was
canceled meanwhile); when it was, the hook raises `JobCanceled` inside the method, whose writer
then discards its partial output, and the replica is free for the next job. `heartbeat` reports
on a timer too, which renews the job's lease (serve/store.py) while the method works.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

REPORT_INTERVAL_S = 0.5
# A report that times out is tried again, a few times with a growing pause: the ingress may only be
# busy for a moment, and a lost heartbeat is a lease not renewed. All tries of one report together
# (3 x 5 s, plus 0.25 + 0.5 s of pauses) stay near half of the default 30 s lease.
REPORT_TRIES = 3
REPORT_TRY_TIMEOUT_S = 5.0
REPORT_BACKOFF_S = 0.25
log = logging.getLogger("ray.serve")


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


def send_report(
    send: Callable[[float], bool],
    what: str,
    tries: int = REPORT_TRIES,
    backoff_s: float = REPORT_BACKOFF_S,
    timeout_s: float = REPORT_TRY_TIMEOUT_S,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """`send(timeout_s)`'s answer; a try that raises (a timeout, the ingress restarting) is logged
    and retried after a pause that doubles, `tries` times in all. When every try failed the report
    is dropped, logged as such, and the answer is False ("go on"): progress never fails a job."""
    for attempt in range(1, tries + 1):
        try:
            return bool(send(timeout_s))
        except Exception as exc:
            if attempt == tries:
                log.warning("%s dropped after %d tries: %s: %s", what, tries, type(exc).__name__, exc)
                return False
            pause = backoff_s * 2 ** (attempt - 1)
            log.warning(
                "%s failed (try %d of %d: %s); retrying in %.2f s", what, attempt, tries, type(exc).__name__, pause
            )
            sleep(pause)
    return False


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
