"""How g2w talks while it runs: its own lines on stderr, Ray's output only when asked for.

The library logs through `logging` (loggers under `g2w`) and never configures it; the command line
calls `configure` once, and the Ray job entrypoints go through the command line. Results a command
prints (JSON summaries, tables, paths) stay on stdout, so they can be piped while the log is read.

Two modes:

- quiet, the default: g2w's lines at INFO, one per stage and a summary; Ray's driver messages at
  WARNING and above; Ray Data's progress bars on a terminal only, because anywhere else (a log file,
  CI, `ray job submit`'s log) they become hundreds of state lines that bury the stage lines; and the
  workers' output left in Ray's session logs instead of copied to the driver.
- verbose (`--verbose`): g2w at DEBUG with time and logger name, Ray's INFO messages, the workers'
  output on the driver, and Ray Data's progress reporting everywhere.

Ray is imported only inside the functions that adjust it, so commands that never start Ray stay quick.
"""

from __future__ import annotations

import logging
import sys
from typing import IO, Any

_QUIET_FORMAT = "%(message)s"
_VERBOSE_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_verbose = False


class _CurrentStderr(logging.StreamHandler):
    """Writes to whatever `sys.stderr` is at the time of the record, not at configuration.

    A process that swaps its stderr (a test capturing output, a notebook) still gets the lines,
    and a closed stream left from an earlier swap is never written.
    """

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _DropMessages(logging.Filter):
    """Drops records whose message starts with one of `prefixes`: notices about settings we chose."""

    def __init__(self, *prefixes: str) -> None:
        super().__init__()
        self.prefixes = prefixes

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.prefixes)


# A local cluster turns token auth on by default and says so as a warning at every start: that is
# the safe setting we want. Ray Data warns once that its progress bars are off: here that is intended.
_NOTICES = {
    "ray._private.authentication.authentication_token_setup": _DropMessages("Token authentication is enabled"),
    "ray.data._internal.progress": _DropMessages("Progress bars disabled"),
}
for _name, _notice in _NOTICES.items():
    logging.getLogger(_name).addFilter(_notice)


def configure(verbose: bool = False) -> None:
    """Set up g2w's logging for a command; calling it again replaces the earlier setup."""
    global _verbose
    _verbose = verbose
    logger = logging.getLogger("g2w")
    for handler in [h for h in logger.handlers if isinstance(h, _CurrentStderr)]:
        logger.removeHandler(handler)
    handler = _CurrentStderr()
    handler.setFormatter(logging.Formatter(_VERBOSE_FORMAT if verbose else _QUIET_FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logger.propagate = False


def is_verbose() -> bool:
    return _verbose


def ray_init_options() -> dict[str, Any]:
    """The `ray.init` arguments of the current mode: how much Ray says, and whether workers' output is copied."""
    return {"logging_level": logging.INFO if _verbose else logging.WARNING, "log_to_driver": _verbose}


def quiet_ray_data(stream: IO[str] | None = None) -> bool:
    """Ray Data's progress and console messages for the current mode; returns whether progress shows.

    Progress shows on a terminal (`stream`, default stdout) or when verbose. Ray Data's own console
    handler prints every dataset's start, plan and finish at INFO; in quiet mode it keeps WARNING and
    above, while its log file in the session folder still receives everything.
    """
    from ray.data import DataContext

    on = _verbose or (sys.stdout if stream is None else stream).isatty()
    DataContext.get_current().enable_progress_bars = on
    for handler in logging.getLogger("ray.data").handlers:
        if handler.get_name() == "console":
            handler.setLevel(logging.INFO if _verbose else logging.WARNING)
    return on


def item_level(row: dict) -> int:
    """The level of a job's line about one item: a finished one is detail, a failed one is news."""
    return logging.DEBUG if row.get("status") == "ok" else logging.INFO
