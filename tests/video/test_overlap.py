"""Background decode and encode threads: order, back-pressure, errors and clean-up."""

import threading

import pytest

from g2w.video.overlap import BackgroundWriter, prefetch


def test_prefetch_yields_everything_in_order_and_stays_bounded():
    produced = []

    def items():
        for i in range(50):
            produced.append(i)
            yield i

    seen = []
    for i in prefetch(items(), depth=3):
        seen.append(i)
        assert len(produced) - len(seen) <= 3 + 1  # the queue plus the item being put
    assert seen == list(range(50))


def test_prefetch_raises_the_producers_error_in_the_consumer():
    def items():
        yield 1
        raise ValueError("corrupt stream")

    with pytest.raises(ValueError, match="corrupt stream"):
        list(prefetch(items()))


def test_stopping_early_closes_the_source_in_its_thread():
    closed = threading.Event()

    def items():
        try:
            for i in range(1000):
                yield i
        finally:
            closed.set()

    for i in prefetch(items(), depth=2):
        if i == 3:
            break
    assert closed.wait(5)


class Recorder:
    def __init__(self, fail_at=None):
        self.items, self.fail_at, self.exit = [], fail_at, None

    def write(self, item):
        if item == self.fail_at:
            raise OSError("disk full")
        self.items.append(item)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.exit = exc_type


def test_background_writer_writes_in_order_and_closes_cleanly():
    rec = Recorder()
    with BackgroundWriter(rec, depth=2) as out:
        for i in range(100):
            out.submit(i)
    assert rec.items == list(range(100)) and rec.exit is None


def test_a_write_error_reaches_the_caller_and_aborts_the_writer():
    rec = Recorder(fail_at=5)
    with pytest.raises(OSError, match="disk full"):
        with BackgroundWriter(rec, depth=2) as out:
            for i in range(100):
                out.submit(i)
    assert rec.items == list(range(5)) and rec.exit is OSError


def test_an_error_in_the_caller_aborts_the_writer():
    rec = Recorder()
    with pytest.raises(RuntimeError):
        with BackgroundWriter(rec) as out:
            out.submit(1)
            raise RuntimeError("render failed")
    assert rec.exit is RuntimeError


def test_finish_lets_several_writers_close_at_the_same_time():
    both_closing = threading.Barrier(2, timeout=10)

    class SlowClose(Recorder):
        def __exit__(self, exc_type, exc, tb):
            both_closing.wait()  # breaks (and the test fails) if the closes run one after another
            super().__exit__(exc_type, exc, tb)

    a, b = SlowClose(), SlowClose()
    with BackgroundWriter(a) as wa, BackgroundWriter(b) as wb:
        wa.submit(1)
        wb.submit(2)
        wa.finish()
        wb.finish()
    assert (a.items, b.items, a.exit, b.exit) == ([1], [2], None, None)
