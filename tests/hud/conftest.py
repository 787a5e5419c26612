"""Fixtures for the HUD tests: a small procedural asset library on disk, clips made on the spot."""

from __future__ import annotations

import numpy as np
import pytest

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import bootstrap_library
from g2w.sample_data import VideoSpec, render_frames
from g2w.video import VideoWriter


@pytest.fixture(scope="session")
def library_dir(tmp_path_factory):
    """A bootstrap library: 3 assets per label (plus hotbar icons), seed 0."""
    root = tmp_path_factory.mktemp("lib")
    bootstrap_library(root, per_label=3, seed=0)
    return str(root)


@pytest.fixture(scope="session")
def library(library_dir):
    """The bootstrap library opened once (tests only read it; its image cache is shared)."""
    return AssetLibrary.open(library_dir)


def gameplay_frames(width: int, height: int, frames: int, style: str = "topdown", seed: int = 0) -> list[np.ndarray]:
    """Moving procedural gameplay (the sample games), `frames` frames at 30 fps."""
    spec = VideoSpec(seed, 0, width, height, 30, frames / 30, style, False, None)
    return [f for f, _ in zip(render_frames(spec), range(frames))]


def write_clip(path, frames, fps=30, crf=18) -> str:
    h, w = frames[0].shape[:2]
    with VideoWriter(path, w, h, fps, crf=crf, preset="ultrafast") as writer:
        for f in frames:
            writer.write(f)
    return str(path)
