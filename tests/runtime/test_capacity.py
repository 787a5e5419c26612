"""GPU pools are planned from what the cluster can grow to, as the cluster configs tell every job
(G2W_MAX_GPUS, G2W_MAX_CPUS): an autoscaling cluster whose GPU workers start at zero still gets
GPU actors (the rule, without Ray)."""

import pytest

from g2w.curate.config import CurateConfig
from g2w.jobs.curate import _device
from g2w.runtime.capacity import configured, possible


def test_the_limits_the_job_is_told_count_although_nothing_is_up():
    now = {"CPU": 8.0, "memory": 1e10}
    assert possible(now, {"CPU": 72.0, "GPU": 4.0}) == {"CPU": 72.0, "memory": 1e10, "GPU": 4.0}
    assert possible(now, {"CPU": 0.0, "GPU": 0.0})["GPU"] == 0.0  # nothing told: what is up
    assert possible({"CPU": 2, "GPU": 1}, {"GPU": 0.0})["GPU"] == 1.0  # GPUs up now count as before


def test_limits_come_from_the_environment():
    assert configured({}) == {"GPU": 0.0, "CPU": 0.0}
    assert configured({"G2W_MAX_GPUS": " ", "G2W_MAX_CPUS": "64"}) == {"GPU": 0.0, "CPU": 64.0}
    assert configured({"G2W_MAX_GPUS": "8"})["GPU"] == 8.0
    with pytest.raises(ValueError):
        configured({"G2W_MAX_GPUS": "-1"})


def test_curation_picks_cuda_for_clip_when_gpu_nodes_can_start(monkeypatch):
    monkeypatch.delenv("G2W_MAX_GPUS", raising=False)
    assert _device(CurateConfig(), {"CPU": 4.0}) == "cpu"
    monkeypatch.setenv("G2W_MAX_GPUS", "2")
    assert _device(CurateConfig(), {"CPU": 4.0}) == "cuda"
    assert _device(CurateConfig(device="cpu"), {"CPU": 4.0}) == "cpu"  # an explicit choice wins


def test_a_gpu_pool_is_sized_for_the_gpus_the_cluster_can_start(monkeypatch):
    from g2w.runtime import pipeline
    from g2w.step import Resources

    monkeypatch.setattr(pipeline, "cluster_capacity", lambda: possible({"CPU": 8.0}, {"CPU": 40.0, "GPU": 4}))
    assert pipeline._pool_size(Resources(num_cpus=1, num_gpus=1)) == 4  # none up yet: the autoscaler starts them
    assert pipeline._pool_size(Resources(num_cpus=4)) == 10
    assert pipeline._pool_size(Resources(num_cpus=1, num_gpus=1, max_workers=2)) == 2  # configuration wins
