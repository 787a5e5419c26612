"""GPU paths of curation (skipped without CUDA): k-means on the GPU, CLIP on the GPU."""

import numpy as np
import pytest

from g2w.curate.kmeans import spherical_kmeans
from g2w.models.clip_embedder import ClipEmbedder, ClipSpec


@pytest.mark.gpu
def test_kmeans_on_gpu_is_deterministic_and_matches_cpu_quality():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20000, 64)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    c1, l1 = spherical_kmeans(x, k_max=64, seed=3, device="cuda")
    c2, l2 = spherical_kmeans(x, k_max=64, seed=3, device="cuda")
    assert np.array_equal(l1, l2) and np.array_equal(c1, c2)
    assert np.allclose(np.linalg.norm(c1, axis=1), 1, atol=1e-5)
    cc, lc = spherical_kmeans(x, k_max=64, seed=3, device="cpu")
    gpu_fit = (x * c1[l1]).sum(1).mean()
    cpu_fit = (x * cc[lc]).sum(1).mean()
    assert abs(gpu_fit - cpu_fit) < 0.01


@pytest.mark.gpu
def test_clip_on_gpu_agrees_with_cpu(tiny_clip_config):
    crops = np.random.default_rng(1).integers(0, 256, (8, 224, 224, 3), dtype=np.uint8)
    gpu = ClipEmbedder(ClipSpec(tiny_clip_config, None, "cuda")).embed(crops)
    cpu = ClipEmbedder(ClipSpec(tiny_clip_config, None, "cpu")).embed(crops)
    assert np.allclose(np.linalg.norm(gpu, axis=1), 1, atol=1e-3)
    assert (gpu * cpu).sum(1).min() > 0.999
