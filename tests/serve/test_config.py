"""The shipped Serve config parses under Ray Serve's own schema, names real deployments, and
deploys the removal service and the LLM judge side by side, each under its own route prefix."""

import copy
import os

import pytest
import yaml
from pydantic import ValidationError
from ray.serve.schema import ServeDeploySchema

from serve.settings import parse_settings

SERVE = os.path.join(os.path.dirname(__file__), "..", "..", "serve")


def _config() -> dict:
    with open(os.path.join(SERVE, "config.yaml")) as f:
        return yaml.safe_load(f)


def _apps(config: dict) -> dict:
    return {a["name"]: a for a in config["applications"]}


def test_config_follows_the_serve_schema():
    ServeDeploySchema.model_validate(_config())


def test_one_config_deploys_both_apps_at_distinct_prefixes():
    config = _config()
    apps = _apps(config)
    assert set(apps) == {"g2w", "llm-judge"}
    assert apps["g2w"]["route_prefix"] == "/" and apps["llm-judge"]["route_prefix"] == "/llm-judge"
    assert apps["llm-judge"]["import_path"] == "ray.serve.llm:build_openai_app"
    # Serve itself refuses two applications on one prefix, as the two files once had.
    clash = copy.deepcopy(config)
    clash["applications"][1]["route_prefix"] = "/"
    with pytest.raises(ValidationError, match="route_prefix"):
        ServeDeploySchema.model_validate(clash)


def test_the_removal_routes_leave_the_judges_prefix_to_it():
    """The proxy sends a path to the longest matching prefix: no route of the removal app may sit
    under the judge's, or the judge would answer it."""
    from serve.api import app

    def paths(routes):
        for r in routes:  # an included router (FastAPI's _IncludedRouter) holds routes of its own
            yield from paths(r.original_router.routes) if hasattr(r, "original_router") else [r.path]

    prefix = _apps(_config())["llm-judge"]["route_prefix"]
    paths = list(paths(app.routes))
    assert "/v1/removals" in paths and not [p for p in paths if p == prefix or p.startswith(prefix + "/")]


def test_the_named_judge_is_the_deployed_one():
    apps = _apps(_config())
    settings = parse_settings(apps["g2w"]["args"], env={"G2W_SERVE_TOKEN": "t"})
    models = {c["model_loading_config"]["model_id"] for c in apps["llm-judge"]["args"]["llm_configs"]}
    http = _config()["http_options"]
    for judge in settings.judges.values():
        assert judge["endpoint"] == f"http://127.0.0.1:{http['port']}{apps['llm-judge']['route_prefix']}/v1"
        assert judge["model"] in models


def test_removal_config_names_our_deployments_and_settings():
    app = _apps(_config())["g2w"]
    assert app["import_path"] == "serve.app:build"
    assert {d["name"] for d in app["deployments"]} <= {"Api", "CpuRemover", "GpuRemover", "Detector", "Judge"}
    settings = parse_settings(app["args"], env={"G2W_SERVE_TOKEN": "t"})  # every arg is a known setting
    assert settings.gpu_replicas >= 1 and settings.max_running >= 1 and settings.judges
