"""cluster.yaml and the KubeRay manifests: valid against what reads them, and shaped as the
README says (a CPU head that runs no tasks, CPU workers, GPU workers that scale from zero)."""

import json
import os

import jsonschema
import pytest
import ray.autoscaler
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load(*parts):
    with open(os.path.join(ROOT, *parts)) as f:
        return list(yaml.safe_load_all(f))


def test_cluster_yaml_is_valid_for_the_ray_cluster_launcher():
    (config,) = _load("cluster.yaml")
    with open(os.path.join(os.path.dirname(ray.autoscaler.__file__), "ray-schema.json")) as f:
        jsonschema.validate(config, json.load(f))
    types = config["available_node_types"]
    assert config["head_node_type"] == "head" and types["head"]["resources"] == {"CPU": 0}
    assert types["gpu_worker"]["min_workers"] == 0 and types["gpu_worker"]["resources"]["GPU"] >= 1
    assert types["cpu_worker"]["resources"]["CPU"] > 0 and "GPU" not in types["cpu_worker"]["resources"]
    assert all(t["max_workers"] <= config["max_workers"] for t in types.values())
    assert all("RAY_AUTH_MODE=token" in " ".join(config[k]) for k in ("head_start_ray_commands", "worker_start_ray_commands"))


def test_a_broken_cluster_yaml_is_rejected_by_the_same_schema():
    (config,) = _load("cluster.yaml")
    config["available_node_types"]["gpu_worker"]["resources"]["GPU"] = "one"
    with open(os.path.join(os.path.dirname(ray.autoscaler.__file__), "ray-schema.json")) as f:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(config, json.load(f))


def test_kuberay_manifests_name_the_image_the_jobs_and_a_gpu_group_from_zero():
    kinds = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "k8s"))):
        if name.endswith(".yaml"):
            for doc in _load("k8s", name):
                assert doc["apiVersion"] == "ray.io/v1", name
                kinds[doc["kind"]] = doc
    assert set(kinds) == {"RayCluster", "RayJob", "RayService"}
    cluster = kinds["RayCluster"]["spec"]
    assert cluster["enableInTreeAutoscaling"] is True
    gpu = [g for g in cluster["workerGroupSpecs"] if g["groupName"] == "gpu"][0]
    limits = gpu["template"]["spec"]["containers"][0]["resources"]["limits"]
    assert gpu["minReplicas"] == 0 and gpu["maxReplicas"] > 0 and limits["nvidia.com/gpu"] == 1
    assert kinds["RayJob"]["spec"]["entrypoint"].startswith("python -m ray_jobs.curate ")
    assert "import_path: serve.app:build" in kinds["RayService"]["spec"]["serveConfigV2"]
