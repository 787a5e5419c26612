"""Autoscaling with fake nodes: a GPU-typed worker pool that starts at zero grows when a g2w
task asks for a GPU and shrinks back to zero once idle, and a job that is told the GPUs the
cluster can start (G2W_MAX_GPUS) plans for them while none is up.

Ray's fake multi-node provider (what `ray.cluster_utils.AutoscalingCluster` drives) starts each
"node" as a real raylet process on this machine; it is driven here through `ray start` on ports
and a temp dir of the test's own, because `AutoscalingCluster.start()` runs `ray stop --force`,
which would stop every other Ray instance on the machine. It is autoscaler v1: v2's monitor needs
the fake provider's `example.yaml`, which the ray wheel does not ship, so the node types a v2
job is told are tested without Ray (tests/runtime/test_capacity.py).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.cluster.ray_processes import LocalCluster, free_ports

_CLIENT = """
import json, time
import ray
from g2w.runtime.ray_init import init_ray
from g2w.runtime.capacity import gpus_possible
from g2w.runtime.tasks import call_remote


def gpus():
    return sum(n["Resources"].get("GPU", 0) for n in ray.nodes() if n["Alive"])


def where():
    return ray.get_runtime_context().get_node_id(), ray.get_gpu_ids()


init_ray()
before, possible = gpus(), gpus_possible()
node, ids = call_remote(where, num_gpus=1)
during = gpus()
start = time.monotonic()
while gpus() > 0 and time.monotonic() - start < 150:
    time.sleep(2)
head = ray.get_runtime_context().get_node_id()
print(json.dumps({"before": before, "possible": possible, "during": during, "after": gpus(), "gpu_ids": ids, "ran_on_head": node == head}))
"""


def _config(gcs: int) -> dict:
    mb = 1 << 20
    return {
        "cluster_name": "g2w-fake",
        "max_workers": 4,
        "upscaling_speed": 1.0,
        "idle_timeout_minutes": 0.1,
        "provider": {
            "type": "fake_multinode",
            "use_node_id_as_ip": True,
            "disable_node_updaters": True,
            "disable_launch_config_check": True,
            "gcs_address": f"127.0.0.1:{gcs}",
        },
        "available_node_types": {
            "ray.head.default": {"resources": {"CPU": 1}, "node_config": {}, "max_workers": 0},
            "gpu_worker": {
                "resources": {"CPU": 1, "GPU": 1, "object_store_memory": 100 * mb},
                "node_config": {},
                "min_workers": 0,
                "max_workers": 2,
            },
        },
        "head_node_type": "ray.head.default",
        "auth": {},
        "docker": {},
        "file_mounts": {},
        "cluster_synced_files": [],
        "file_mounts_sync_continuously": False,
        "initialization_commands": [],
        "setup_commands": [],
        "head_setup_commands": [],
        "worker_setup_commands": [],
        "head_start_ray_commands": [],
        "worker_start_ray_commands": [],
    }


@pytest.mark.slow
def test_a_gpu_pool_scales_from_zero_and_back(tmp_path):
    fake = {"AUTOSCALER_UPDATE_INTERVAL_S": "1", "RAY_FAKE_CLUSTER": "1"}
    config = tmp_path / "fake_cluster.json"
    cluster_args = ["--num-cpus=1", "--num-gpus=0", f"--autoscaling-config={config}"]
    (gcs,) = free_ports(1)  # the provider's config names the GCS before the head starts
    config.write_text(json.dumps(_config(gcs)))
    cluster = LocalCluster(cluster_args, extra_env=fake, gcs_port=gcs)
    try:
        cluster.wait_for("/1.0 CPU")
        out = subprocess.run(
            [sys.executable, "-c", _CLIENT],
            env={**cluster.env, "RAY_ADDRESS": cluster.address, "G2W_MAX_GPUS": "2"},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        # the autoscaler's event lines ("(autoscaler +Ns) ...") reach the driver's stdout too, in any order
        seen = json.loads(next(line for line in reversed(out.stdout.splitlines()) if line.startswith('{"before"')))
    finally:
        cluster.stop()
    assert seen["before"] == 0 and seen["possible"] == 2  # none up, 2 possible: GPU pools are planned
    assert seen["during"] >= 1 and seen["after"] == 0
    assert seen["gpu_ids"] and not seen["ran_on_head"]
