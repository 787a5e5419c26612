"""What the cluster configs must hold, each check a function that returns its problems (empty when
the config is right), so one test asserts a check passes on the real files and another shows it
fails on a copy mutated to carry the defect it names."""

from __future__ import annotations

import argparse
import json
import os
import shlex

import yaml

from g2w.curate.options import add_curate_arguments, config_from_args

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POOL_LABEL = "g2w.io/pool"
KEPT_CLIPS_GOAL = 1_000_000

# vCPUs, memory (GiB), GPUs and EKS pod slots (max pods with the VPC CNI) of the instance types
# the configs name, from the EC2 instance-type tables.
INSTANCES = {
    "m6i.xlarge": (4, 16, 0, 58),
    "m6i.2xlarge": (8, 32, 0, 58),
    "c6i.4xlarge": (16, 32, 0, 234),
    "c6i.8xlarge": (32, 64, 0, 234),
    "g5.4xlarge": (16, 64, 1, 234),
    "g6e.2xlarge": (8, 64, 1, 58),
}
# Daemonsets on every EKS node (aws-node, kube-proxy, the NVIDIA device plugin on GPU nodes).
DAEMONSET_CPU, DAEMONSET_GIB = 0.25, 0.5


def load(*parts) -> list[dict]:
    with open(os.path.join(ROOT, *parts)) as f:
        return [d for d in yaml.safe_load_all(f) if d]


def k8s_docs() -> list[dict]:
    return [
        d for name in sorted(os.listdir(os.path.join(ROOT, "k8s"))) if name.endswith(".yaml") for d in load("k8s", name)
    ]


def ray_kinds(docs: list[dict]) -> dict[str, dict]:
    return {d["kind"]: d for d in docs if d.get("apiVersion") == "ray.io/v1"}


def cluster_spec(doc: dict) -> dict:
    """The RayClusterSpec inside a RayCluster, RayJob or RayService."""
    spec = doc["spec"]
    return {
        "RayCluster": lambda: spec,
        "RayJob": lambda: spec["rayClusterSpec"],
        "RayService": lambda: spec["rayClusterConfig"],
    }[doc["kind"]]()


def groups(doc: dict) -> list[tuple[str, dict]]:
    spec = cluster_spec(doc)
    return [("head", spec["headGroupSpec"])] + [(g["groupName"], g) for g in spec["workerGroupSpecs"]]


# --- cluster.yaml -----------------------------------------------------------------------------


def ray_up_profiles(config: dict) -> list[str]:
    """Every node type has an IAM instance profile whose policy file is in aws/."""
    problems = []
    for name, t in config["available_node_types"].items():
        profile = t["node_config"].get("IamInstanceProfile", {}).get("Name")
        if not profile:
            problems.append(f"{name}: no IamInstanceProfile (Ray gives its default one to the head only)")
        elif not os.path.exists(os.path.join(ROOT, "aws", f"iam-{profile.removeprefix('g2w-')}-policy.json")):
            problems.append(f"{name}: no aws/iam-*-policy.json for profile {profile}")
    return problems


def ray_up_image(config: dict) -> list[str]:
    """Every node type boots an AMI whose NVIDIA driver runs the cu130 wheels (not Ray's default DLAMI)."""
    return [
        f"{name}: ImageId {t['node_config'].get('ImageId')!r} is not the OSS-driver GPU base AMI"
        for name, t in config["available_node_types"].items()
        if "base-oss-nvidia-driver-gpu" not in t["node_config"].get("ImageId", "")
    ]


def ray_up_spot(config: dict) -> list[str]:
    """Each worker pool has a spot type, preferred, and an on-demand twin with the same resources."""
    problems = []
    workers = {n: t for n, t in config["available_node_types"].items() if n != config["head_node_type"]}
    spot = {
        n: t
        for n, t in workers.items()
        if t["node_config"].get("InstanceMarketOptions", {}).get("MarketType") == "spot"
    }
    for name, t in spot.items():
        twins = [
            o
            for o in workers.values()
            if o not in spot.values() and o["resources"] == t["resources"] and o.get("labels") == t.get("labels")
        ]
        if not twins:
            problems.append(f"{name}: no on-demand type with the same resources to fall back to")
        elif any(o.get("priority", 0) >= t.get("priority", 0) for o in twins):
            problems.append(f"{name}: spot is not preferred (priority not above its on-demand twin)")
    if not any("GPU" in t["resources"] for t in spot.values()) or not any(
        "GPU" not in t["resources"] for t in spot.values()
    ):
        problems.append("spot capacity must exist for both the CPU and the GPU pool")
    return problems


def ray_up_scaling(config: dict) -> list[str]:
    return (
        [] if config.get("upscaling_speed", 1.0) >= 4 else [f"upscaling_speed {config.get('upscaling_speed', 1.0)} < 4"]
    )


def ray_up_labels(config: dict) -> list[str]:
    """Every node type says its pool; GPU types are pool=gpu, CPU worker types pool=cpu."""
    problems = []
    for name, t in config["available_node_types"].items():
        pool = t.get("labels", {}).get(POOL_LABEL)
        want = "head" if name == config["head_node_type"] else ("gpu" if t["resources"].get("GPU") else "cpu")
        if pool != want:
            problems.append(f"{name}: label {POOL_LABEL}={pool!r}, expected {want!r}")
    return problems


def ray_up_instances(config: dict) -> list[str]:
    """The declared resources are what the instance type has (the comments state the same)."""
    problems = []
    for name, t in config["available_node_types"].items():
        vcpu, _, gpus, _ = INSTANCES[t["node_config"]["InstanceType"]]
        if t["resources"].get("GPU", 0) != gpus or (name != config["head_node_type"] and t["resources"]["CPU"] != vcpu):
            problems.append(f"{name}: resources {t['resources']} do not match {t['node_config']['InstanceType']}")
    return problems


# --- k8s/ -------------------------------------------------------------------------------------


def auth_options(docs: list[dict]) -> list[str]:
    """Token auth through spec.authOptions (which KubeRay hands to the autoscaler sidecar, the
    submitter and its dashboard client), and no hand-set token env that would shadow it."""
    problems = []
    for kind, doc in ray_kinds(docs).items():
        auth = cluster_spec(doc).get("authOptions") or {}
        if auth.get("mode") != "token" or not auth.get("secretName"):
            problems.append(f"{kind}: no authOptions {{mode: token, secretName}}")
        for group, g in groups(doc):
            for c in g["template"]["spec"]["containers"]:
                if any(e["name"] in ("RAY_AUTH_TOKEN", "RAY_AUTH_MODE") for e in c.get("env", [])):
                    problems.append(f"{kind}/{group}: sets the auth token by hand")
    return problems


def service_accounts(docs: list[dict]) -> list[str]:
    """Every Ray pod runs as a service account with an IRSA role defined beside it."""
    defined = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ServiceAccount"}
    problems = []
    for kind, doc in ray_kinds(docs).items():
        for group, g in groups(doc):
            sa = g["template"]["spec"].get("serviceAccountName")
            if sa not in defined:
                problems.append(f"{kind}/{group}: service account {sa!r} is not defined in k8s/")
            elif "eks.amazonaws.com/role-arn" not in defined[sa]["metadata"].get("annotations", {}):
                problems.append(f"{kind}/{group}: service account {sa} has no IAM role")
    return problems


def _quantity(value) -> float:
    text = str(value)
    for suffix, scale in (("Gi", 1.0), ("Mi", 1 / 1024), ("m", 1e-3)):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * scale
    return float(text)


def allocatable(instance: str) -> tuple[float, float]:
    """CPU and memory (GiB) a pod can have on an EKS node of this type: the kubelet's reserves
    (EKS AMI formula) and the daemonsets' share subtracted."""
    vcpu, gib, _, pods = INSTANCES[instance]
    steps = [(1, 0.06), (1, 0.01), (2, 0.005), (vcpu, 0.0025)]
    reserved_cpu, left = 0.0, vcpu
    for cores, share in steps:
        used = min(cores, left)
        reserved_cpu, left = reserved_cpu + used * share, left - used
    reserved_gib = (255 + 11 * pods + 100) / 1024
    return vcpu - reserved_cpu - DAEMONSET_CPU, gib - reserved_gib - DAEMONSET_GIB


def requests_fit(docs: list[dict]) -> list[str]:
    """Each pod names its instance type and asks for no more than that node can give a pod."""
    problems = []
    for kind, doc in ray_kinds(docs).items():
        for group, g in groups(doc):
            spec = g["template"]["spec"]
            instance = spec.get("nodeSelector", {}).get("node.kubernetes.io/instance-type")
            if instance not in INSTANCES:
                problems.append(f"{kind}/{group}: no known instance type in nodeSelector")
                continue
            cpu, gib = allocatable(instance)
            for c in spec["containers"]:
                res = c.get("resources", {})
                for which in ("requests", "limits"):
                    r = res.get(which, {})
                    if not r:
                        problems.append(f"{kind}/{group}: no {which}")
                    elif _quantity(r.get("cpu", 0)) > cpu or _quantity(r.get("memory", 0)) > gib:
                        problems.append(
                            f"{kind}/{group}: {which} {r} exceed {instance}'s allocatable {cpu:.2f} CPU, {gib:.1f} GiB"
                        )
    return problems


def pool_labels(docs: list[dict]) -> list[str]:
    """Every group carries its Ray node label; groups with GPUs are pool=gpu, others cpu (head: head)."""
    problems = []
    for kind, doc in ray_kinds(docs).items():
        for group, g in groups(doc):
            limits = g["template"]["spec"]["containers"][0].get("resources", {}).get("limits", {})
            want = "head" if group == "head" else ("gpu" if limits.get("nvidia.com/gpu") else "cpu")
            if g.get("labels", {}).get(POOL_LABEL) != want:
                problems.append(
                    f"{kind}/{group}: label {POOL_LABEL}={g.get('labels', {}).get(POOL_LABEL)!r}, expected {want!r}"
                )
    return problems


def rayjob_config(docs: list[dict]):
    """The curation config the RayJob's entrypoint runs with."""
    words = shlex.split(ray_kinds(docs)["RayJob"]["spec"]["entrypoint"])
    assert words[:3] == ["python", "-m", "ray_jobs.curate"], words[:3]
    parser = argparse.ArgumentParser()
    add_curate_arguments(parser)
    return config_from_args(parser.parse_args(words[3:]))


def rayjob_keeps_goal(docs: list[dict]) -> list[str]:
    """CLIP with real weights on a mounted volume, and a candidate cap that can keep 1M clips."""
    cfg, problems = rayjob_config(docs), []
    if not cfg.uses_clip or not cfg.clip_pretrained:
        problems.append("RayJob: no --clip-pretrained, so curation falls back to the appearance descriptor")
    else:
        mounts = [
            m["mountPath"]
            for _, g in groups(ray_kinds(docs)["RayJob"])
            for c in g["template"]["spec"]["containers"]
            for m in c.get("volumeMounts", [])
        ]
        if not any(cfg.clip_pretrained.startswith(m.rstrip("/") + "/") for m in mounts):
            problems.append(f"RayJob: CLIP weights {cfg.clip_pretrained} are on no mounted volume")
    if cfg.max_candidates < KEPT_CLIPS_GOAL:
        problems.append(f"RayJob: --max-candidates {cfg.max_candidates} keeps fewer than {KEPT_CLIPS_GOAL} clips")
    return problems


def serve_config() -> dict:
    return load("serve", "config.yaml")[0]


def rayservice_is_serve_config(docs: list[dict], expected: dict | None = None) -> list[str]:
    """The RayService's serveConfigV2 is serve/config.yaml: every application and deployment."""
    got = yaml.safe_load(ray_kinds(docs)["RayService"]["spec"]["serveConfigV2"])
    expected = serve_config() if expected is None else expected
    if got == expected:
        return []
    problems = []
    for key in sorted(set(got) | set(expected)):
        if got.get(key) != expected.get(key):
            problems.append(
                f"RayService serveConfigV2.{key} differs from serve/config.yaml: "
                f"{json.dumps(got.get(key), sort_keys=True)[:200]}"
            )
    return problems


def gcs_fault_tolerance(docs: list[dict]) -> list[str]:
    """The long-lived clusters keep GCS state in an external Redis defined beside them."""
    services = {d["metadata"]["name"] for d in docs if d["kind"] == "Service"}
    problems = []
    for kind in ("RayCluster", "RayService"):
        ft = cluster_spec(ray_kinds(docs)[kind]).get("gcsFaultToleranceOptions") or {}
        host = ft.get("redisAddress", "").removeprefix("redis://").split(":")[0]
        if host not in services:
            problems.append(f"{kind}: GCS fault tolerance has no Redis service in k8s/ ({ft.get('redisAddress')!r})")
        if "valueFrom" not in (ft.get("redisPassword") or {}):
            problems.append(f"{kind}: the Redis password does not come from a secret")
    return problems


def volumes_defined(docs: list[dict]) -> list[str]:
    """Every PersistentVolumeClaim a pod mounts is in k8s/."""
    claims = {d["metadata"]["name"] for d in docs if d["kind"] == "PersistentVolumeClaim"}
    problems = []
    for kind, doc in ray_kinds(docs).items():
        for group, g in groups(doc):
            for v in g["template"]["spec"].get("volumes", []):
                name = v.get("persistentVolumeClaim", {}).get("claimName")
                if name and name not in claims:
                    problems.append(f"{kind}/{group}: PVC {name} is not defined in k8s/")
    return problems
