"""cluster.yaml and the KubeRay manifests: valid against what reads them, and holding what a real
cluster needs (credentials on every node, a driver that runs the wheels, token auth KubeRay can
hand on, pool labels, requests that fit, a RayJob that keeps 1M clips, the RayService that is
serve/config.yaml). Every check is shown to fail on a copy carrying the defect it names."""

from __future__ import annotations

import copy
import json
import os

import jsonschema
import pytest
import ray.autoscaler
import yaml

from tests.cluster import config_checks as checks
from tests.cluster.crd_schema import CRD_FILES, KUBERAY_VERSION, crd_dir, strict_schema


def _ray_schema() -> dict:
    with open(os.path.join(os.path.dirname(ray.autoscaler.__file__), "ray-schema.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def cluster_yaml() -> dict:
    (config,) = checks.load("cluster.yaml")
    return config


@pytest.fixture(scope="module")
def manifests() -> list[dict]:
    return checks.k8s_docs()


def test_cluster_yaml_is_valid_for_the_ray_cluster_launcher(cluster_yaml):
    jsonschema.validate(cluster_yaml, _ray_schema())
    types = cluster_yaml["available_node_types"]
    assert cluster_yaml["head_node_type"] == "head" and types["head"]["resources"] == {"CPU": 0}
    assert all(t["max_workers"] <= cluster_yaml["max_workers"] for t in types.values())
    assert all(
        "RAY_AUTH_MODE=token" in " ".join(cluster_yaml[k])
        for k in ("head_start_ray_commands", "worker_start_ray_commands")
    )


def test_a_broken_cluster_yaml_is_rejected_by_the_same_schema(cluster_yaml):
    config = copy.deepcopy(cluster_yaml)
    config["available_node_types"]["gpu_spot"]["resources"]["GPU"] = "one"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(config, _ray_schema())


RAY_UP_CHECKS = [
    checks.ray_up_profiles,
    checks.ray_up_image,
    checks.ray_up_spot,
    checks.ray_up_scaling,
    checks.ray_up_labels,
    checks.ray_up_instances,
]


@pytest.mark.parametrize("check", RAY_UP_CHECKS, ids=lambda c: c.__name__)
def test_cluster_yaml_holds(check, cluster_yaml):
    assert check(cluster_yaml) == []


def _drop_profiles(c):
    del c["available_node_types"]["cpu_spot"]["node_config"]["IamInstanceProfile"]


def _default_ami(c):
    del c["available_node_types"]["gpu_spot"]["node_config"]["ImageId"]


def _no_fallback(c):
    del c["available_node_types"]["gpu_ondemand"]


def _on_demand_first(c):
    c["available_node_types"]["cpu_ondemand"]["priority"] = 20


def _slow(c):
    c["upscaling_speed"] = 1.0


def _unlabelled(c):
    del c["available_node_types"]["cpu_spot"]["labels"]


def _gpu_labelled_cpu(c):
    c["available_node_types"]["gpu_ondemand"]["labels"] = {checks.POOL_LABEL: "cpu"}


def _wrong_size(c):
    c["available_node_types"]["cpu_spot"]["resources"]["CPU"] = 64


@pytest.mark.parametrize(
    "check,mutate",
    [
        (checks.ray_up_profiles, _drop_profiles),
        (checks.ray_up_image, _default_ami),
        (checks.ray_up_spot, _no_fallback),
        (checks.ray_up_spot, _on_demand_first),
        (checks.ray_up_scaling, _slow),
        (checks.ray_up_labels, _unlabelled),
        (checks.ray_up_labels, _gpu_labelled_cpu),
        (checks.ray_up_instances, _wrong_size),
    ],
    ids=lambda x: x.__name__,
)
def test_each_cluster_yaml_check_fails_on_its_defect(check, mutate, cluster_yaml):
    config = copy.deepcopy(cluster_yaml)
    mutate(config)
    assert check(config)


def test_the_iam_policies_parse_and_let_workers_write_the_outputs():
    with open(os.path.join(checks.ROOT, "aws", "iam-worker-policy.json")) as f:
        worker = json.load(f)
    writes = [s for s in worker["Statement"] if "s3:PutObject" in s["Action"]]
    assert any("arn:aws:s3:::g2w-curated/*" in s["Resource"] for s in writes)
    with open(os.path.join(checks.ROOT, "aws", "iam-head-policy.json")) as f:
        head = json.load(f)
    assert any(s["Action"] == "iam:PassRole" and s["Resource"].endswith(":role/g2w-worker") for s in head["Statement"])


K8S_CHECKS = [
    checks.auth_options,
    checks.service_accounts,
    checks.requests_fit,
    checks.pool_labels,
    checks.rayjob_keeps_goal,
    checks.rayservice_is_serve_config,
    checks.gcs_fault_tolerance,
    checks.volumes_defined,
]


@pytest.mark.parametrize("check", K8S_CHECKS, ids=lambda c: c.__name__)
def test_kuberay_manifests_hold(check, manifests):
    assert check(manifests) == []


def _kind(docs, kind):
    return checks.ray_kinds(docs)[kind]


def _env_auth_only(docs):
    spec = checks.cluster_spec(_kind(docs, "RayJob"))
    del spec["authOptions"]


def _hand_set_token(docs):
    c = checks.cluster_spec(_kind(docs, "RayCluster"))["headGroupSpec"]["template"]["spec"]["containers"][0]
    c.setdefault("env", []).append(
        {"name": "RAY_AUTH_TOKEN", "valueFrom": {"secretKeyRef": {"name": "x", "key": "token"}}}
    )


def _no_service_account(docs):
    del checks.cluster_spec(_kind(docs, "RayJob"))["workerGroupSpecs"][0]["template"]["spec"]["serviceAccountName"]


def _whole_instance(docs):
    g = checks.cluster_spec(_kind(docs, "RayCluster"))["workerGroupSpecs"][0]
    g["template"]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "32", "memory": "64Gi"}


def _unlabelled_group(docs):
    del checks.cluster_spec(_kind(docs, "RayService"))["workerGroupSpecs"][1]["labels"]


def _no_clip_weights(docs):
    job = _kind(docs, "RayJob")["spec"]
    job["entrypoint"] = job["entrypoint"].replace("--clip-pretrained /mnt/shared/weights/clip/ViT-B-16-openai.bin", "")


def _default_cap(docs):
    job = _kind(docs, "RayJob")["spec"]
    job["entrypoint"] = job["entrypoint"].replace("--max-candidates 1250000", "")


def _fixed_gpu_replicas(docs):
    service = _kind(docs, "RayService")["spec"]
    config = yaml.safe_load(service["serveConfigV2"])
    gpu = [d for d in config["applications"][0]["deployments"] if d["name"] == "GpuRemover"][0]
    gpu.pop("autoscaling_config")
    gpu["num_replicas"] = 1
    service["serveConfigV2"] = yaml.safe_dump(config)


def _no_ft(docs):
    del checks.cluster_spec(_kind(docs, "RayCluster"))["gcsFaultToleranceOptions"]


def _missing_pvc(docs):
    docs[:] = [d for d in docs if d["kind"] != "PersistentVolumeClaim" or d["metadata"]["name"] != "g2w-shared"]


@pytest.mark.parametrize(
    "check,mutate",
    [
        (checks.auth_options, _env_auth_only),
        (checks.auth_options, _hand_set_token),
        (checks.service_accounts, _no_service_account),
        (checks.requests_fit, _whole_instance),
        (checks.pool_labels, _unlabelled_group),
        (checks.rayjob_keeps_goal, _no_clip_weights),
        (checks.rayjob_keeps_goal, _default_cap),
        (checks.rayservice_is_serve_config, _fixed_gpu_replicas),
        (checks.gcs_fault_tolerance, _no_ft),
        (checks.volumes_defined, _missing_pvc),
    ],
    ids=lambda x: x.__name__,
)
def test_each_manifest_check_fails_on_its_defect(check, mutate, manifests):
    docs = copy.deepcopy(manifests)
    mutate(docs)
    assert check(docs)


def test_the_rayservice_follows_serve_config_when_that_changes(manifests):
    """The comparison is derived from serve/config.yaml, not a copy of it."""
    changed = checks.serve_config()
    changed["applications"][0]["deployments"][0]["num_replicas"] = 2
    assert checks.rayservice_is_serve_config(manifests, changed)


CRDS = crd_dir(checks.ROOT)
needs_crds = pytest.mark.skipif(
    CRDS is None, reason=f"KubeRay {KUBERAY_VERSION} CRDs not in shared/kuberay/{KUBERAY_VERSION}"
)


@pytest.fixture(scope="module")
def crd_schemas() -> dict:
    return {kind: strict_schema(os.path.join(CRDS, name)) for kind, name in CRD_FILES.items()}


@needs_crds
def test_kuberay_manifests_validate_against_the_crds(crd_schemas, manifests):
    for kind, doc in checks.ray_kinds(manifests).items():
        jsonschema.validate(doc, crd_schemas[kind])


@needs_crds
@pytest.mark.parametrize(
    "kind,mutate",
    [
        ("RayCluster", lambda s: s.__setitem__("authOption", {"mode": "token"})),  # a misspelt field
        ("RayJob", lambda s: s["rayClusterSpec"]["authOptions"].__setitem__("mode", "tokens")),
        ("RayService", lambda s: s["rayClusterConfig"]["workerGroupSpecs"][0].__setitem__("label", {})),
    ],
)
def test_the_crd_schemas_reject_unknown_fields_and_bad_values(kind, mutate, crd_schemas, manifests):
    doc = copy.deepcopy(checks.ray_kinds(manifests)[kind])
    mutate(doc["spec"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, crd_schemas[kind])
