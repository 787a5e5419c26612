"""One-ahead loading for the training loop: the next micro-batch is read (from disk or a bucket,
decoded, moved to the device) on a background thread while the current one computes, so a step
waits on storage only when reading is slower than the step itself. Order and content are those
of loading each item in turn; a failed load raises where its batch would have been used."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
B = TypeVar("B")
_END = object()


def prefetched(items: Iterable[T], load: Callable[[T], B]) -> Iterator[tuple[T, B]]:
    """(item, load(item)) for each item in order, with the next item's load already running."""
    it = iter(items)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="g2w-prefetch") as pool:
        item = next(it, _END)
        pending = pool.submit(load, item) if item is not _END else None
        while pending is not None:
            following = next(it, _END)
            queued = pool.submit(load, following) if following is not _END else None
            yield item, pending.result()
            item, pending = following, queued
