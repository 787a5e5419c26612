"""Ray's own logs in the run's folder, `OUT/logs/ray/<session>/`, instead of on the console.

An embedded local Ray writes its logs (the raylet's, the dashboard's, every worker's stdout and
stderr) under its session folder in the system's temporary directory, where a user neither looks
nor finds them after a reboot. Ray is not pointed there directly: its session folder also holds
its sockets, whose paths must stay short, and an output may be object storage. So while the job
runs, the run folder holds a link to the live session logs (readable as they grow), and when Ray
shuts down, at the end of the process or by `shutdown_ray`, the link is replaced by a copy.

The run folder is the one a composite job names (`use_run_folder`, the demo's top folder), or
else the output of the job that started Ray. A cluster's Ray (RAY_ADDRESS) keeps its logs on its
nodes.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil

log = logging.getLogger(__name__)

_run_folder: str | None = None
_kept: list[tuple[str, str]] = []  # (session logs, link in the run folder) still to copy


def use_run_folder(path: str | os.PathLike | None) -> None:
    """Name the folder whose `logs/ray/` receives the logs of the Ray this process starts next."""
    global _run_folder
    _run_folder = None if path is None else os.fspath(path)


def _local_folder(path: str | None) -> str | None:
    if not path or "://" in path:
        return None
    return os.path.abspath(path)


def link_session_logs(session_logs: str, output: str | None) -> str | None:
    """Link the run folder's `logs/ray/<session>` to Ray's live logs; returns the link, None when no run folder."""
    folder = _local_folder(_run_folder or output)
    if folder is None or not os.path.isdir(session_logs):
        return None
    session = os.path.basename(os.path.dirname(session_logs.rstrip(os.sep)))
    target = os.path.join(folder, "logs", "ray", session)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.lexists(target):
        os.unlink(target) if os.path.islink(target) else shutil.rmtree(target)
    os.symlink(session_logs, target)
    if not _kept:
        atexit.register(_shutdown_and_copy)
    _kept.append((session_logs, target))
    return target


def copy_session_logs() -> None:
    """Replace each link by a copy of the logs it points at: call once Ray has shut down."""
    while _kept:
        session_logs, target = _kept.pop()
        if not (os.path.islink(target) and os.readlink(target) == session_logs):
            continue  # replaced since by someone else: leave it
        os.unlink(target)
        try:
            shutil.copytree(session_logs, target, symlinks=True, ignore_dangling_symlinks=True)
        except (OSError, shutil.Error) as exc:  # a log rotated away mid-copy: keep what was copied
            log.warning("could not copy all of Ray's logs to %s: %s", target, exc)


def _shutdown_and_copy() -> None:
    """At exit, before Ray's own exit handler: shut Ray down so its logs are complete, then copy them."""
    import ray

    if ray.is_initialized():
        ray.shutdown()
    copy_session_logs()
