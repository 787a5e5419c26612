"""Ray Data draws progress bars on a terminal or when verbose, and stays quiet elsewhere (a log, CI, a job log)."""

import io
import logging

from ray.data import DataContext

from g2w.runtime import logs


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_unless_verbose():
    context = DataContext.get_current()
    before = context.enable_progress_bars
    try:
        logs.configure(verbose=False)
        assert logs.quiet_ray_data(io.StringIO()) is False and context.enable_progress_bars is False
        assert logs.quiet_ray_data(_Terminal()) is True and context.enable_progress_bars is True
        logs.configure(verbose=True)
        assert logs.quiet_ray_data(io.StringIO()) is True and context.enable_progress_bars is True
    finally:
        logs.configure(verbose=False)
        context.enable_progress_bars = before


def test_ray_options_follow_the_mode():
    try:
        logs.configure(verbose=False)
        assert logs.ray_init_options() == {"logging_level": logging.WARNING, "log_to_driver": False}
        assert logging.getLogger("g2w.jobs.x").getEffectiveLevel() == logging.INFO
        logs.configure(verbose=True)
        assert logs.ray_init_options() == {"logging_level": logging.INFO, "log_to_driver": True}
        assert logging.getLogger("g2w.jobs.x").getEffectiveLevel() == logging.DEBUG
    finally:
        logs.configure(verbose=False)


def test_lines_go_to_the_stderr_of_the_moment_once(capsys):
    logs.configure(verbose=False)
    logs.configure(verbose=False)  # a second command in one process replaces, never doubles, the handler
    logging.getLogger("g2w.jobs.x").info("[1/2] a stage")
    logging.getLogger("g2w.jobs.x").debug("detail")
    captured = capsys.readouterr()
    assert captured.err == "[1/2] a stage\n" and captured.out == ""


def test_a_failed_item_is_news_a_finished_one_detail():
    assert logs.item_level({"status": "ok"}) == logging.DEBUG
    assert logs.item_level({"status": "error"}) == logging.INFO
