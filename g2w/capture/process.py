"""Running game engines headless: a virtual X display and processes that always end.

Every process starts in its own session (process group) and is killed with the whole group
when it runs past its timeout or when the caller is done with it, so an engine that hangs, or
the encoder it spawned through a shell, never outlives the capture.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass


class CaptureError(RuntimeError):
    """A capture that could not produce frames; `reason` names why for the error record."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def kill_group(proc: subprocess.Popen, grace_s: float = 2.0) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after `grace_s`."""
    if proc.poll() is not None:
        return
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


@dataclass
class RunResult:
    returncode: int | None
    finished_by: str  # "exit" (the engine ended), "done" (our stop condition) or "timeout"
    seconds: float
    log_tail: str


def run_until(
    cmd: Sequence[str],
    *,
    env: dict,
    cwd: str,
    timeout_s: float,
    log_path: str,
    done: Callable[[], bool] = lambda: False,
    poll_s: float = 0.2,
) -> RunResult:
    """Run `cmd` until it exits, `done()` turns true, or `timeout_s` passes; the group is always killed."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            list(cmd),
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        finished_by = "timeout"
        try:
            while time.monotonic() - start < timeout_s:
                if done():
                    finished_by = "done"
                    break
                if proc.poll() is not None:
                    finished_by = "exit"
                    break
                time.sleep(poll_s)
        finally:
            kill_group(proc)
    with open(log_path, "rb") as f:
        tail = f.read()[-2000:].decode("utf-8", "replace")
    return RunResult(proc.returncode, finished_by, round(time.monotonic() - start, 3), tail)


def run_for_frames(
    engine: str,
    cmd: Sequence[str],
    *,
    env: dict,
    cwd: str,
    workdir: str,
    raw: str,
    done: str,
    frames: int,
    width: int,
    height: int,
    timeout_s: float,
) -> str:
    """Run an engine until its frame sink makes the file `done`; returns `raw` holding exactly `frames` frames.

    Raises `CaptureError`: `engine_timeout`, `demo_too_short` (the engine ended early by itself)
    or `engine_failed`, with the end of the engine's log.
    """
    result = run_until(
        cmd,
        env=env,
        cwd=cwd,
        timeout_s=timeout_s,
        log_path=os.path.join(workdir, "engine.log"),
        done=lambda: os.path.exists(done),
    )
    if result.finished_by == "timeout":
        raise CaptureError("engine_timeout", f"{engine} did not deliver {frames} frames in {timeout_s:.0f} s")
    got = os.path.getsize(raw) // (width * height * 3) if os.path.exists(raw) else 0
    if got != frames:
        raise CaptureError(
            "demo_too_short" if result.returncode == 0 else "engine_failed",
            f"{got}/{frames} frames (engine rc={result.returncode}): {result.log_tail[-400:]}",
        )
    return raw


@contextmanager
def virtual_display(width: int, height: int, timeout_s: float = 20.0):
    """An Xvfb server on a free display number; yields the DISPLAY string (":N")."""
    read_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_fd),
                "-screen",
                "0",
                f"{width}x{height}x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ],
            pass_fds=(write_fd,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except FileNotFoundError as exc:
        os.close(read_fd)
        os.close(write_fd)
        raise CaptureError("xvfb_missing", "Xvfb is not installed (scripts/capture-deps.sh installs it)") from exc
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], timeout_s)
        number = os.read(read_fd, 32).decode().strip() if ready else ""
        if not number:
            raise CaptureError("xvfb_failed", f"Xvfb gave no display within {timeout_s:.0f} s")
        yield f":{number}"
    finally:
        os.close(read_fd)
        kill_group(proc)
