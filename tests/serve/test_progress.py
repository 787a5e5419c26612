"""The progress hook on its own, and how it reaches (or skips) removal methods; no Ray."""

from __future__ import annotations

import os
import time

import pytest

from g2w.cases.case import Case
from g2w.jobs.remove import remove_one
from g2w.remove import run_method
from serve.inputs import InputError, method_options
from serve.progress import JobCanceled, ProgressHook, heartbeat
from serve.work import run_removal


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_hook_throttles_reports_and_raises_once_canceled():
    sent, canceled, clock = [], [False], Clock()
    hook = ProgressHook(lambda frames: sent.append(frames) or canceled[0], interval_s=0.5, clock=clock)
    hook(1)  # the first call always reports
    clock.now = 0.2
    hook(7)  # within the interval: remembered, not sent
    clock.now = 0.6
    hook(3)  # frames never go backwards
    assert sent == [1, 7]
    canceled[0] = True
    clock.now = 1.2
    with pytest.raises(JobCanceled) as info:
        hook(9)
    assert info.value.frames == 9


def test_progress_reaches_methods_that_take_it_and_is_never_an_option(make_video, tmp_path):
    case = Case(case_id="c", split="wild", source=make_video(frames=12), annotation="")
    seen = []
    assert run_method("identity", case, str(tmp_path / "a.mp4"), progress=seen.append) == 12
    assert seen == [12]
    row = remove_one("identity", case, str(tmp_path), {"progress": "x"})  # e.g. g2w remove --options
    assert (row["status"], row["reason"]) == ("error", "remove_failed") and "progress hook" in row["message"]
    with pytest.raises(InputError) as info:
        method_options("propagate", '{"progress": 1}')
    assert info.value.reason == "bad_options"


def test_a_canceled_method_stops_and_leaves_no_output(make_video, tmp_path):
    source = make_video(frames=24)
    workdir = tmp_path / "job"
    workdir.mkdir()
    job = {
        "id": "job_x",
        "input": source,
        "workdir": str(workdir),
        "method": "propagate",
        "params": {"options": {"chunk_frames": 4}},
    }

    def stop_after_five(frames):  # what ProgressHook does once the service says "canceled"
        if frames >= 5:
            raise JobCanceled(frames)

    assert run_removal(job, stop_after_five) == {"state": "canceled", "frames": 5}
    assert os.listdir(workdir) == []  # the writer discarded its partial file
    assert run_removal(job)["frames"] == 24  # unhooked, the same job runs whole


def test_heartbeat_reports_while_the_method_is_silent_and_carries_a_stop():
    answers = []

    def report(frames):
        answers.append(frames)
        return len(answers) >= 3  # the third beat is answered "stop"

    hook = ProgressHook(report, interval_s=3600)
    with heartbeat(hook, 0.01):
        deadline = time.monotonic() + 5
        while not hook.stop_heard and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(answers) >= 3 and hook.stop_heard
    with pytest.raises(JobCanceled):
        hook(7)  # the method's next progress call stops it


def test_a_report_that_times_out_is_logged_and_retried_with_backoff(caplog):
    """The worker's report to the ingress: two timeouts, then the answer (stop) gets through; a
    report that never does is dropped after its tries, logged, and says "go on"."""
    from serve.progress import send_report

    pauses, timeouts = [], []

    def flaky(answers):
        def send(timeout_s):
            timeouts.append(timeout_s)
            answer = answers.pop(0)
            if isinstance(answer, Exception):
                raise answer
            return answer

        return send

    with caplog.at_level("WARNING", logger="ray.serve"):
        stop = send_report(
            flaky([TimeoutError("10 s"), TimeoutError("10 s"), True]), "progress of j", sleep=pauses.append
        )
    assert stop is True and pauses == [0.25, 0.5] and timeouts == [5.0] * 3
    assert [r.getMessage() for r in caplog.records] == [
        "progress of j failed (try 1 of 3: TimeoutError); retrying in 0.25 s",
        "progress of j failed (try 2 of 3: TimeoutError); retrying in 0.50 s",
    ]
    caplog.clear()
    pauses.clear()
    with caplog.at_level("WARNING", logger="ray.serve"):
        go_on = send_report(flaky([TimeoutError("t")] * 4), "progress of k", tries=4, sleep=pauses.append)
    assert go_on is False and pauses == [0.25, 0.5, 1.0]
    assert caplog.records[-1].getMessage() == "progress of k dropped after 4 tries: TimeoutError: t"
    assert send_report(flaky([False]), "progress of m", sleep=pauses.append) is False and pauses == [0.25, 0.5, 1.0]
