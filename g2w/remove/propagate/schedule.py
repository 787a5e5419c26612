"""The fill's two threads: tasks shared between this thread and one pool thread, and frames handed on in order."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool() -> ThreadPoolExecutor:
    """This process's one-thread pool for the backward pass (made per process id: a forked
    child must not inherit a pool whose thread it does not have)."""
    pid = os.getpid()
    if pid not in _POOLS:
        _POOLS[pid] = ThreadPoolExecutor(1, thread_name_prefix="propagate-backward")
    return _POOLS[pid]


class InOrder:
    """Hands finished frames to `emit` in frame order, from whichever thread finished them."""

    def __init__(self, out: list, emit: Callable[[np.ndarray], None] | None):
        self.out, self.emit = out, emit
        self.done = [False] * len(out)
        self.next = 0
        self.lock = threading.Lock()

    def __call__(self, t: int) -> None:
        if self.emit is None:
            return
        with self.lock:
            self.done[t] = True
            while self.next < len(self.out) and self.done[self.next]:
                self.emit(self.out[self.next])
                self.next += 1


def on_both(tasks: list[Callable[[], None]]) -> None:
    """Run `tasks` on this thread and the pool's, each thread taking the next task not yet
    started, so neither waits for the other while tasks remain (OpenCV and numpy's large
    operations release the GIL)."""
    lock = threading.Lock()
    todo = iter(tasks)

    def work() -> None:
        while True:
            with lock:
                task = next(todo, None)
            if task is None:
                return
            task()

    other = _pool().submit(work)
    try:
        work()
    finally:
        other.result()
