"""Shared fixtures: tiny videos made on the spot, and one local Ray for the whole session."""

from __future__ import annotations

import numpy as np
import pytest

from g2w.video import VideoWriter

# Evaluation fixtures (a tiny synthesis output folder, baseline edits, wild cases) are shared by
# tests/evaluate, tests/remove and tests/jobs; the S3 server (moto) serves the object-storage tests,
# and a PostgreSQL server from Debian's package the job-store tests.
pytest_plugins = ("tests.evaluate.fixtures", "tests.s3_fixtures", "tests.pg_server")


def pytest_collection_modifyitems(config, items):
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def numbered_frame(i: int, width: int, height: int) -> np.ndarray:
    """A frame whose content encodes its index: flat colour blocks survive lossy coding."""
    frame = np.empty((height, width, 3), np.uint8)
    frame[:, : width // 2] = (i * 7) % 256
    frame[:, width // 2 :, 0] = 255 - (i * 7) % 256
    frame[:, width // 2 :, 1] = 128
    frame[:, width // 2 :, 2] = (i * 3) % 256
    return frame


def frame_index_of(frame: np.ndarray) -> int:
    """Recover the index written by `numbered_frame` (valid for i < 37)."""
    return int(round(float(frame[:, : frame.shape[1] // 2].mean()) / 7))


@pytest.fixture
def make_video(tmp_path):
    """make_video(name, frames=30, fps=30, width=160, height=96) -> path of a numbered H.264 clip."""

    def make(name="clip.mp4", frames=30, fps=30, width=160, height=96, **writer_args):
        path = tmp_path / name
        with VideoWriter(path, width, height, fps, **writer_args) as writer:
            for i in range(frames):
                writer.write(numbered_frame(i, width, height))
        return str(path)

    return make


@pytest.fixture(scope="session")
def ray_local():
    from g2w.runtime.ray_init import init_ray, shutdown_ray

    resources = init_ray(num_cpus=2)
    yield resources
    shutdown_ray()


TINY_CLIP = {
    "embed_dim": 64,
    "vision_cfg": {"image_size": 224, "layers": 1, "width": 64, "patch_size": 16, "head_width": 32, "pool_type": "avg"},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 64, "heads": 2, "layers": 1},
}


@pytest.fixture(scope="session")
def tiny_clip_config(tmp_path_factory) -> str:
    """An open_clip model config for a one-layer ViT, randomly initialized by the job: real
    open_clip code, test-sized. Mean-pooled, so similar frames get similar embeddings."""
    import json

    path = tmp_path_factory.mktemp("models") / "tiny-clip-test.json"
    path.write_text(json.dumps(TINY_CLIP))
    return str(path)
