"""On a cluster with GPUs the remove job gives a GPU method one GPU per worker (so the runtime uses an
actor pool)."""

from g2w.jobs.remove import RemoveCases
from g2w.remove import METHODS, Method


def test_gpu_methods_run_on_a_gpu_actor_pool(monkeypatch):
    monkeypatch.setitem(
        METHODS, "gpu-copy", Method("gpu-copy", "g2w.remove.baselines:identity", mask=False, ref_pt=False, gpu=True)
    )
    gpu_step, cpu_step = RemoveCases("gpu-copy", "/out", {}, use_gpu=True), RemoveCases("identity", "/out")
    assert gpu_step.resources().num_gpus == 1 and gpu_step.needs_actor()
    assert cpu_step.resources().num_gpus == 0 and not cpu_step.needs_actor()
