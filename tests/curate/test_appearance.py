"""The appearance descriptor (the embedder without CLIP weights) and how the job picks it."""

import cv2
import numpy as np
import pytest

from g2w.curate.appearance import DIM, AppearanceEmbedder
from g2w.curate.config import CurateConfig
from g2w.curate.embed import EmbedCentralFrames
from g2w.models.clip_embedder import ClipSpec
from g2w.sample_data.textures import colorize, tileable_noise

THRESHOLD = CurateConfig().appearance_dedup_threshold


def _world(seed: int, width: int = 224 * 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return colorize(
        tileable_noise(rng, 224, width, 8, 4), tuple(rng.integers(0, 120, 3)), tuple(rng.integers(120, 255, 3))
    )


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    e = AppearanceEmbedder().embed(np.stack([a, b]))
    return float(e[0] @ e[1])


def test_a_replay_with_a_grey_offset_is_a_near_duplicate():
    a = _world(0)[:, :224]
    replay = cv2.add(a, np.full_like(a, 4))
    assert _cos(a, replay) > THRESHOLD


def test_the_same_place_seen_elsewhere_and_another_place_are_not():
    w = _world(1)
    assert _cos(w[:, :224], w[:, 150:374]) < THRESHOLD  # the camera moved two thirds of a frame
    assert _cos(w[:, :224], _world(2)[:, :224]) < THRESHOLD - 0.2


def test_rows_are_unit_norm_deterministic_and_survive_flat_frames():
    crops = np.stack([_world(3)[:, :224], np.zeros((224, 224, 3), np.uint8), np.full((224, 224, 3), 200, np.uint8)])
    e = AppearanceEmbedder().embed(crops)
    assert e.shape == (3, DIM) and np.isfinite(e).all()
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(e, AppearanceEmbedder().embed(crops))


@pytest.mark.parametrize(
    "embedder, pretrained, uses_clip",
    [
        ("auto", None, False),
        ("auto", "/weights/clip.bin", True),
        ("clip", None, True),
        ("appearance", "/w.bin", False),
    ],
)
def test_the_embedder_choice(embedder, pretrained, uses_clip):
    cfg = CurateConfig(embedder=embedder, clip_pretrained=pretrained)
    assert cfg.uses_clip == uses_clip
    assert cfg.active_dedup_threshold == (cfg.dedup_threshold if uses_clip else cfg.appearance_dedup_threshold)


def test_the_embedding_step_runs_either_embedder(tiny_clip_config):
    batch = {
        "status": np.array(["ok", "error"]),
        "crop": np.stack([_world(4)[:, :224]] * 2),
        "clip_id": np.array(["a", "b"]),
    }
    for spec, dim in ((None, DIM), (ClipSpec(tiny_clip_config, None, "cpu", 0), 64)):
        step = EmbedCentralFrames(spec)
        step.setup()
        out = step(batch)
        assert "crop" not in out and out["embedding"].shape == (2, dim)
        assert list(out["has_embedding"]) == [True, False] and not out["embedding"][1].any()
