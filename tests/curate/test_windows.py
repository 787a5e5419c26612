import pytest

from g2w.curate.windows import clip_id, plan_windows


@pytest.mark.parametrize("duration, count", [(0, 0), (4.99, 0), (5.0, 1), (9.999, 1), (10.0, 2), (29.97, 5), (30.0, 6)])
def test_complete_windows_only(duration, count):
    windows = plan_windows(duration, 5.0)
    assert len(windows) == count
    assert all(w.end_s - w.start_s == 5.0 for w in windows)
    assert all(b.start_s == a.end_s for a, b in zip(windows, windows[1:]))
    assert all(w.end_s <= duration + 1e-6 for w in windows)


def test_float_rounding_does_not_drop_the_last_window():
    assert len(plan_windows(150 / 30, 5.0)) == 1
    assert len(plan_windows(3 * 5.0 - 1e-9, 5.0)) == 3


def test_centre_and_ids():
    w = plan_windows(20.0, 5.0)[2]
    assert w.center_s == 12.5
    assert clip_id("abc", w.index) == "abc-00002" == clip_id("abc", 2)
