"""One-ahead loading for the training loop: the next micro-batch is read (from disk or a bucket,
decoded, moved to the device) on a background thread while the current one computes, so a step
waits on storage only when reading is slower than the step itself. Order and content are those
of loading each item in turn; a failed load raises where its batch would have been used."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
B = TypeVar("B")


def prefetched(items: Iterable[T], load: Callable[[T], B]) -> Generator[tuple[T, B], None, None]:
    """(item, load(item)) for each item in order, with the next item's load already running."""
    it = iter(items)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="g2w-prefetch") as pool:
        current = _submit_next(pool, it, load)
        while current is not None:
            following = _submit_next(pool, it, load)
            item, pending = current
            yield item, pending.result()
            current = following


def _submit_next(pool: ThreadPoolExecutor, it: Iterator[T], load: Callable[[T], B]) -> tuple[T, Future[B]] | None:
    """The next item with its load started, or None when the items are used up."""
    for item in it:
        return item, pool.submit(load, item)
    return None
