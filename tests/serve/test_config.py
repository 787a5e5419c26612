"""The shipped Serve configs parse under Ray Serve's own schema and name real deployments."""

import os

import pytest
import yaml
from ray.serve.schema import ServeDeploySchema

from serve.settings import parse_settings

SERVE = os.path.join(os.path.dirname(__file__), "..", "..", "serve")


@pytest.mark.parametrize("name", ["config.yaml", "llm_judge.yaml"])
def test_configs_follow_the_serve_schema(name):
    with open(os.path.join(SERVE, name)) as f:
        ServeDeploySchema.model_validate(yaml.safe_load(f))


def test_removal_config_names_our_deployments_and_settings():
    with open(os.path.join(SERVE, "config.yaml")) as f:
        app = yaml.safe_load(f)["applications"][0]
    assert app["import_path"] == "serve.app:build"
    assert {d["name"] for d in app["deployments"]} <= {"Api", "CpuRemover", "GpuRemover", "Detector", "Judge"}
    settings = parse_settings(app["args"], env={"G2W_SERVE_TOKEN": "t"})  # every arg is a known setting
    assert settings.gpu_replicas >= 1 and settings.max_running >= 1
