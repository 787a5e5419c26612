"""The deployments that do the work behind the API: Remover, Detector and Judge.

Each runs its job function from `serve/work.py` in a thread so the replica stays responsive.
Resources and replica counts are set by `serve/app.py` (and config.yaml): a CPU Remover for CPU
methods, a GPU Remover (one per GPU, one request at a time) for methods with `gpu=True`.

The Detector is written against one small interface, so the segmenter plugs in by name:
`detector="module:function"` with `function(video_path, out_dir, **options) -> frames` writing
`out_dir/mask.mkv` (the per-frame UI mask) and `out_dir/annotation.json` (g2w-annotation-v1).

Removers and the Detector report a running job's frames to the ingress (`Api.report_progress`)
through the method's progress hook; the answer "canceled" stops the method mid-clip.
"""

from __future__ import annotations

import asyncio
import importlib

from ray import serve

from serve.progress import ProgressHook, heartbeat, send_report
from serve.work import run_detection, run_evaluation, run_frame, run_removal

INGRESS = "Api"  # the deployment that owns the job store (serve/api.py)
HEARTBEAT_S = 10.0  # when a job comes without the ingress's `heartbeat_s` (a third of its lease)


class _Reporter:
    """Sends a running job's progress to the ingress; its answer says whether the job was canceled.

    Called from the method's thread (never the replica's event loop), so it may wait for the
    answer. A report that times out (a busy or restarting ingress) is logged and retried, a few
    times with backoff (serve/progress.py `send_report`); one that never gets through is logged
    as dropped and the method goes on.
    """

    def __init__(self):
        self._ingress = None

    def hook(self, job: dict) -> ProgressHook:
        """The job's hook; with `progress_fixed` (a second pass over a finished removal's clip) it
        reports that count unchanged and only listens for a cancel."""
        fixed = job.get("progress_fixed")
        return ProgressHook(
            lambda frames: self._send(job["id"], job.get("attempts"), frames if fixed is None else fixed)
        )

    def run(self, job: dict, work):
        """`work(hook)` with the job's hook, heartbeating while it runs (in the caller's thread)."""
        hook = self.hook(job)
        with heartbeat(hook, job.get("heartbeat_s", HEARTBEAT_S)):
            return work(hook)

    def _send(self, job_id: str, attempt: int | None, frames: int) -> bool:
        def once(timeout_s: float) -> bool:
            if self._ingress is None:
                self._ingress = serve.get_deployment_handle(INGRESS)  # the application this replica is in
            return self._ingress.report_progress.remote(job_id, frames, attempt).result(timeout_s=timeout_s)

        return send_report(once, f"progress of {job_id} ({frames} frames)")


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=1, max_queued_requests=64)
class Remover:
    """Runs registry methods on one clip (or one image) at a time per replica."""

    def __init__(self):
        self._reporter = _Reporter()

    async def remove(self, job: dict) -> dict:
        return await asyncio.to_thread(self._reporter.run, job, lambda hook: run_removal(job, hook))

    async def remove_frame(self, rgb, method: str, options: dict) -> bytes:
        return await asyncio.to_thread(run_frame, rgb, method, options)


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=1)
class Detector:
    """Detection only: the UI mask and annotation of a clip, from the function named `target`."""

    def __init__(self, target: str):
        module, attr = target.split(":")
        self._detect = getattr(importlib.import_module(module), attr)
        self._reporter = _Reporter()

    async def detect(self, job: dict) -> dict:
        return await asyncio.to_thread(self._reporter.run, job, lambda hook: run_detection(job, self._detect, hook))


@serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=1)
class Judge:
    """Runs the evaluate job; it takes no CPU itself, its Ray Data tasks take the cluster's.
    `judges` are the service's named LLM judges (serve/settings.py), the only ones it calls."""

    def __init__(self, judges: dict):
        self._judges = dict(judges)
        self._reporter = _Reporter()

    async def evaluate(self, job: dict) -> dict:
        return await asyncio.to_thread(self._reporter.run, job, lambda hook: run_evaluation(job, self._judges))
