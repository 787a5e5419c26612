"""The KubeRay CRDs as JSON Schemas that reject unknown fields, as the API server does.

A CRD's openAPIV3Schema is an OpenAPI subset; the API server prunes (and with
`kubectl apply --validate=strict` rejects) fields no schema names. Here every object with
`properties` gets `additionalProperties: false` unless it says `x-kubernetes-preserve-unknown-fields`,
and `x-kubernetes-int-or-string` becomes integer-or-string, so jsonschema sees what the API server does.

The CRD files are KubeRay's `ray-operator/config/crd/bases/ray.io_{rayclusters,rayjobs,rayservices}.yaml`
of the release the manifests are written for; they are data kept beside the repository, in
shared/kuberay/<version>/, and found by `crd_dir`.
"""

from __future__ import annotations

import os

import yaml

KUBERAY_VERSION = "v1.7.0"
CRD_FILES = {
    "RayCluster": "ray.io_rayclusters.yaml",
    "RayJob": "ray.io_rayjobs.yaml",
    "RayService": "ray.io_rayservices.yaml",
}


def crd_dir(root: str) -> str | None:
    """shared/kuberay/<version> inside the checkout or beside it, if it holds the three CRDs."""
    for base in (os.path.join(root, "shared"), os.path.join(os.path.dirname(root), "shared")):
        path = os.path.join(base, "kuberay", KUBERAY_VERSION)
        if all(os.path.exists(os.path.join(path, f)) for f in CRD_FILES.values()):
            return path
    return None


def strict(node):
    if isinstance(node, list):
        return [strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: strict(v) for k, v in node.items() if k != "description" and not k.startswith("x-kubernetes-")}
    if "properties" in node:
        out["properties"] = {k: strict(v) for k, v in node["properties"].items()}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if (
        out.get("type") == "object"
        and "properties" in out
        and "additionalProperties" not in out
        and not node.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def strict_schema(path: str, version: str = "v1") -> dict:
    with open(path) as f:
        crd = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # 1 MB each: libyaml's parser
    (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
    return {"$schema": "http://json-schema.org/draft-07/schema#", **strict(served["schema"]["openAPIV3Schema"])}
