"""Ray Data draws progress bars on a terminal and stays quiet elsewhere (a log, CI, a job log)."""

import io

from ray.data import DataContext

from g2w.runtime.ray_init import quiet_progress_off_terminal


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal():
    context = DataContext.get_current()
    before = context.enable_progress_bars
    try:
        assert quiet_progress_off_terminal(io.StringIO()) is False and context.enable_progress_bars is False
        assert quiet_progress_off_terminal(_Terminal()) is True and context.enable_progress_bars is True
    finally:
        context.enable_progress_bars = before
