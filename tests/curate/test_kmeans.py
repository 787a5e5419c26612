import numpy as np
import pytest

from g2w.curate import kmeans
from g2w.curate.kmeans import num_clusters, spherical_kmeans


@pytest.fixture(autouse=True, params=["faiss", "torch"])
def kmeans_path(request, monkeypatch):
    """Every clustering test runs twice: faiss's k-means (the CPU path) and our torch loop (the GPU
    path, here on CPU tensors, so CI covers it too)."""
    if request.param == "torch":
        monkeypatch.setattr(
            kmeans,
            "_faiss_kmeans",
            lambda x, train, k, iters, seed: kmeans._torch_kmeans(x, train, k, iters, seed, "cpu"),
        )
    return request.param


@pytest.mark.parametrize(
    "n, k_max, k",
    [
        (0, 2048, 0),
        (1, 2048, 1),
        (2, 2048, 2),
        (3, 2048, 3),
        (4, 2048, 4),
        (16, 2048, 16),
        (17, 2048, 16),
        (100, 2048, 40),
        (1_000_000, 2048, 2048),
        (262_144, 2048, 2048),
        (262_143, 2048, 2047),
        (100, 10, 10),
        (50, 2048, 28),
        (1000, 2048, 126),
    ],
)
def test_k_formula(n, k_max, k):
    """K = min(K_max, N, max(2, floor(4 sqrt N))), worked out by hand for each case."""
    assert num_clusters(n, k_max) == k


def _blobs(n_per, centers, noise, seed):
    rng = np.random.default_rng(seed)
    x = np.concatenate([c + noise * rng.standard_normal((n_per, len(c))) for c in centers])
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_clusters_are_pure_and_centroids_unit_length():
    d = 16
    x = _blobs(25, np.eye(d)[:4] * 10, 0.5, 0)  # N = 100 -> K = 40 clusters over 4 true groups
    centroids, labels = spherical_kmeans(x, seed=1)
    assert centroids.shape == (40, d)
    assert np.allclose(np.linalg.norm(centroids, axis=1), 1.0, atol=1e-5)
    groups = np.repeat(np.arange(4), 25)
    for c in set(labels):  # no cluster mixes two true groups
        assert len(set(groups[labels == c])) == 1
    assert np.array_equal(labels, np.argmax(x @ centroids.T, axis=1))  # every point at its nearest


def test_same_seed_same_clusters_and_seed_matters():
    x = _blobs(60, np.random.default_rng(3).standard_normal((6, 8)) * 3, 1.0, 4)
    a = spherical_kmeans(x, k_max=12, seed=7)
    b = spherical_kmeans(x, k_max=12, seed=7)
    c = spherical_kmeans(x, k_max=12, seed=8)
    assert np.array_equal(a[1], b[1]) and np.array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])


def test_training_subset_still_labels_every_point():
    x = _blobs(100, np.eye(8)[:3] * 10, 0.3, 5)
    centroids, labels = spherical_kmeans(x, k_max=3, init_cap=30, seed=0)
    assert labels.shape == (300,)
    assert set(labels) == {0, 1, 2}
    assert np.array_equal(labels, np.argmax(x @ centroids.T, axis=1))


def test_every_cluster_stays_populated_with_fewer_groups_than_clusters():
    x = _blobs(10, np.eye(4) * 5, 0.05, 0)  # 40 points in 4 tight groups, K = 12
    centroids, labels = spherical_kmeans(x, k_max=12, seed=0)
    assert len(centroids) == 12 and np.isfinite(centroids).all()
    assert np.bincount(labels, minlength=12).min() >= 1  # no cluster left empty


def test_repeated_points_keep_k_finite_centroids():
    x = np.repeat(_blobs(1, np.eye(4) * 5, 0.0, 0), 10, axis=0)  # 4 distinct points, K = 12
    centroids, labels = spherical_kmeans(x, k_max=12, seed=0)
    assert len(centroids) == 12 and np.isfinite(centroids).all()
    assert len(set(labels)) == 4  # identical points can only fill as many clusters as they are
