"""Overlapping decode, work and encode: bounded background threads around iterators and writers.

A frame loop that decodes, renders and encodes in one thread leaves each stage waiting for the
others. PyAV, OpenCV and numpy release the GIL in their heavy calls, so one thread per codec
stage lets the decoder run ahead, and each encoder take its frames as they come, while the
main thread renders. Queues are bounded (a few frames), so memory stays flat and a fast stage
simply waits for a slow one; an error in any thread is raised in the caller.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator

_DONE = object()
_CLOSE = object()  # drain, then close the writer


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


def prefetch(items: Iterable, depth: int = 4) -> Iterator:
    """Yield `items` in order while a background thread produces up to `depth` ahead."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        q.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            q.put(_Failure(exc))
        finally:
            if hasattr(items, "close"):  # a generator's files close in the thread that ran it
                items.close()

    thread = threading.Thread(target=produce, name="prefetch", daemon=True)
    thread.start()
    try:
        while (item := q.get()) is not _DONE:
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting on a full queue
            try:
                q.get(timeout=0.1)
            except queue.Empty:
                pass
        thread.join()


class BackgroundWriter:
    """Calls `write(item)` of a writer (a context manager such as VideoWriter) in its own thread.

    `submit(item)` returns at once unless `depth` items are already waiting. `finish()` asks the
    thread to close the writer once its queue is drained (so several writers flush their
    encoders at the same time), and exiting the context waits for that; on an error the writer
    is aborted instead (its own __exit__). The caller must not modify a submitted array afterwards.
    """

    def __init__(self, writer, depth: int = 4, write: Callable | None = None):
        self.writer = writer
        self._write = write or writer.write
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._closed = False
        self._ended = False
        self._thread = threading.Thread(target=self._run, name="writer", daemon=True)

    def _run(self) -> None:
        while (item := self._queue.get()) is not _DONE and item is not _CLOSE:
            if self._error is None:
                try:
                    self._write(item)
                except BaseException as exc:  # raised in the caller at its next submit or exit
                    self._error = exc
        if item is _CLOSE and self._error is None:
            try:
                self.writer.__exit__(None, None, None)
                self._closed = True
            except BaseException as exc:
                self._error = exc

    def submit(self, item) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(item)

    def finish(self) -> None:
        """Close the writer in its thread after the items already submitted."""
        if not self._ended:
            self._ended = True
            self._queue.put(_CLOSE)

    def __enter__(self) -> BackgroundWriter:
        self.writer.__enter__()
        self._thread.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.finish()
        elif not self._ended:
            self._ended = True
            self._queue.put(_DONE)
        self._thread.join()
        if self._closed:
            return
        if exc_type is None and self._error is not None:
            error = self._error
            self.writer.__exit__(type(error), error, error.__traceback__)
            raise error
        self.writer.__exit__(exc_type, exc, tb)
