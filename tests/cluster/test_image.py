"""The Dockerfile: an unprivileged user, runtime dependencies only, a base that fits the wheels;
built for real where a container builder is on the machine."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.cluster.config_checks import ROOT


def _dockerfile() -> str:
    with open(f"{ROOT}/Dockerfile") as f:
        return f.read()


def test_the_image_runs_as_an_unprivileged_user():
    users = re.findall(r"^USER\s+(\S+)", _dockerfile(), re.M)
    assert users and users[-1] not in ("root", "0")


def test_the_image_installs_the_runtime_lock_only():
    steps = [l for l in _dockerfile().splitlines() if l.strip() and not l.lstrip().startswith("#")]
    text = "\n".join(steps)
    assert "requirements-image.lock" in text and "requirements.lock" not in text.replace("requirements-image.lock", "")
    assert "[test" not in text and "[bench" not in text
    with open(f"{ROOT}/requirements-image.lock") as f:
        names = {line.split("==")[0].lower() for line in f if line.strip()}
    assert {"ray", "torch", "pyarrow", "av"} <= names
    assert not names & {"pytest", "moto", "scikit-image", "scenedetect-headless", "boto3"}


def test_the_runtime_lock_is_derived_from_the_full_lock():
    out = subprocess.run([sys.executable, f"{ROOT}/scripts/image_lock.py", "--check"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_the_base_brings_no_cuda_of_its_own_since_the_wheels_do():
    """torch's cu130 wheels carry CUDA 13.0; a CUDA base image of another version would only add a
    second, mismatched runtime."""
    (base,) = re.findall(r"^FROM\s+(\S+)", _dockerfile(), re.M)
    assert base.startswith("python:3.11") and "cuda" not in base
    with open(f"{ROOT}/requirements-image.lock") as f:
        lock = f.read()
    assert re.search(r"^nvidia-cuda-runtime-cu13==", lock, re.M) or re.search(r"^nvidia-cudnn-cu13==", lock, re.M)


def _working_builder() -> str | None:
    """A container builder that answers (a docker client without a daemon does not)."""
    for name in ("docker", "podman", "buildah"):
        if shutil.which(name):
            probe = [name, "info"] if name != "buildah" else [name, "version"]
            if subprocess.run(probe, capture_output=True, timeout=30).returncode == 0:
                return name
    return None


BUILDER = _working_builder()


@pytest.mark.slow
@pytest.mark.skipif(BUILDER is None, reason="no working container builder (docker, podman, buildah) on this machine")
def test_the_image_builds_and_imports_g2w_as_its_user():
    build = [BUILDER, "bud" if BUILDER == "buildah" else "build", "-t", "g2w-test:latest", ROOT]
    subprocess.run(build, check=True, timeout=3600)
    if BUILDER != "buildah":
        out = subprocess.run(
            [
                BUILDER,
                "run",
                "--rm",
                "g2w-test:latest",
                "python",
                "-c",
                "import os, g2w, ray; print(os.getuid(), ray.__version__)",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        uid, version = out.stdout.split()
        assert uid != "0" and version == "2.60.0"
