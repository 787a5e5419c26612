"""One-ahead loading: the same batches in the same order as loading each in turn, the next one
read while the current one is in use, and a failed load raised at its own batch."""

import threading

import pytest

from g2w.train.prefetch import prefetched


def test_yields_what_loading_each_item_in_turn_yields():
    items = [(k, k * 3) for k in range(7)]
    assert list(prefetched(items, lambda it: it[0] + it[1])) == [(it, it[0] + it[1]) for it in items]
    assert list(prefetched([], lambda it: it)) == []


def test_the_next_item_loads_while_the_current_one_is_in_use():
    started = {k: threading.Event() for k in range(3)}

    def load(k):
        started[k].set()
        return k

    seen = []
    for k, batch in prefetched(range(3), load):
        if k < 2:  # the consumer is still busy with k: k + 1 must already be loading
            assert started[k + 1].wait(timeout=5)
        seen.append(batch)
    assert seen == [0, 1, 2]


def test_a_failed_load_raises_at_its_own_batch():
    def load(k):
        if k == 2:
            raise OSError("shard unreadable")
        return k

    got = []
    with pytest.raises(OSError, match="shard unreadable"):
        for _, batch in prefetched(range(4), load):
            got.append(batch)
    assert got == [0, 1]
