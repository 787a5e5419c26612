"""The deployments that do the work behind the API: Remover, Detector and Judge.

Each runs its job function from `serve/work.py` in a thread so the replica stays responsive.
Resources and replica counts are set by `serve/app.py` (and config.yaml): a CPU Remover for CPU
methods, a GPU Remover (one per GPU, one request at a time) for methods with `gpu=True`.

The Detector is written against one small interface, so the segmenter plugs in by name:
`detector="module:function"` with `function(video_path, out_dir, **options) -> frames` writing
`out_dir/mask.mkv` (the per-frame UI mask) and `out_dir/annotation.json` (g2w-annotation-v1).
"""

from __future__ import annotations

import asyncio
import importlib

from ray import serve

from serve.work import run_detection, run_evaluation, run_frame, run_removal


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=1, max_queued_requests=64)
class Remover:
    """Runs registry methods on one clip (or one image) at a time per replica."""

    async def remove(self, job: dict) -> dict:
        return await asyncio.to_thread(run_removal, job)

    async def remove_frame(self, rgb, method: str, options: dict) -> bytes:
        return await asyncio.to_thread(run_frame, rgb, method, options)


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=1)
class Detector:
    """Detection only: the UI mask and annotation of a clip, from the function named `target`."""

    def __init__(self, target: str):
        module, attr = target.split(":")
        self._detect = getattr(importlib.import_module(module), attr)

    async def detect(self, job: dict) -> dict:
        return await asyncio.to_thread(run_detection, job, self._detect)


@serve.deployment(ray_actor_options={"num_cpus": 0}, max_ongoing_requests=1)
class Judge:
    """Runs the evaluate job; it takes no CPU itself, its Ray Data tasks take the cluster's."""

    async def evaluate(self, job: dict) -> dict:
        return await asyncio.to_thread(run_evaluation, job)
