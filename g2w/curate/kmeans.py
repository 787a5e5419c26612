"""Spherical k-means as Appendix B.1 specifies: faiss's own k-means on CPU, ours in torch on GPU.

K = min(K_max, N, max(2, floor(4 sqrt(N)))). Training uses at most `init_cap` (500,000) rows
drawn with the seed, then 15 iterations of: assign every training row to its most similar
centroid (cosine = dot product on unit vectors), average, re-normalize. Finally all N rows are
assigned, a chunk at a time. Only the training rows are held as float32 (1 GB for 500,000 x 512);
the input stays in its own dtype (float16 in curation: 1 GB for a million 512-d rows).

CPU: `faiss.Kmeans(spherical=True)` on the training rows, then faiss's exact inner-product search
for the labels. It is the library the paper names, and our own loop around faiss's search was
about 2x slower than it on this machine's two cores (`benchmarks/kmeans_vs_faiss.py`). faiss
re-fills an emptied centroid by splitting a large cluster, so K stays K.

GPU: our loop in torch. The K initial centroids are distinct training rows drawn with the seed;
a centroid left empty is re-seeded with the training row least similar to its own centroid;
sums are one-hot matrix products (deterministic, unlike atomic scatter-adds). Both paths give
the same clusters for the same seed on every run, but not the same clusters as each other.
"""

from __future__ import annotations

import math

import numpy as np

_CHUNK = 16384  # rows per similarity block: 16384 x 2048 float32 = 128 MB
_ASSIGN_CHUNK = 131072  # rows converted to float32 at a time for the final assignment (256 MB at 512-d)


def num_clusters(n: int, k_max: int) -> int:
    if n <= 0:
        return 0
    return min(k_max, n, max(2, math.floor(4 * math.sqrt(n))))


def spherical_kmeans(
    x: np.ndarray, k_max: int = 2048, iters: int = 15, init_cap: int = 500_000, seed: int = 0, device: str = "cpu"
) -> tuple[np.ndarray, np.ndarray]:
    """Cluster unit vectors (N, d); returns (centroids (K, d), labels (N,))."""
    n = len(x)
    k = num_clusters(n, k_max)
    if k == 0:
        return np.zeros((0, x.shape[1] if x.ndim == 2 else 0), np.float32), np.zeros(0, np.int64)
    train_idx = np.random.default_rng(seed).permutation(n)[: min(n, max(init_cap, k))]
    train = np.asarray(x[np.sort(train_idx)], dtype=np.float32)
    if device == "cpu":
        return _faiss_kmeans(x, train, k, iters, seed)
    return _torch_kmeans(x, train, k, iters, seed, device)


def _faiss_kmeans(x: np.ndarray, train: np.ndarray, k: int, iters: int, seed: int):
    import faiss

    km = faiss.Kmeans(
        train.shape[1],
        k,
        niter=iters,
        spherical=True,
        seed=seed,
        min_points_per_centroid=1,
        max_points_per_centroid=1 << 30,
    )  # we sampled already
    km.train(train)
    labels = np.empty(len(x), np.int64)
    for start in range(0, len(x), _ASSIGN_CHUNK):  # exact per row, so chunking changes nothing
        part = np.ascontiguousarray(x[start : start + _ASSIGN_CHUNK], dtype=np.float32)
        labels[start : start + _ASSIGN_CHUNK] = km.index.search(part, 1)[1][:, 0]
    return km.centroids, labels


def _torch_kmeans(x: np.ndarray, train: np.ndarray, k: int, iters: int, seed: int, device: str):
    import torch

    gen = torch.Generator().manual_seed(seed)
    rows = torch.from_numpy(train).to(device)
    centroids = rows[torch.randperm(len(rows), generator=gen)[:k].to(device)].clone()
    for _ in range(iters):
        labels, best = _assign(rows, centroids)
        sums = _cluster_sums(rows, labels, k)
        counts = torch.bincount(labels, minlength=k)
        empty = torch.nonzero(counts == 0).flatten()
        if len(empty):  # re-seed with the rows their centroids describe worst
            worst = torch.argsort(best)[: len(empty)]
            sums[empty] = rows[worst]
        centroids = torch.nn.functional.normalize(sums, dim=1)
    labels = np.empty(len(x), np.int64)
    for start in range(0, len(x), _ASSIGN_CHUNK):
        part = torch.from_numpy(np.asarray(x[start : start + _ASSIGN_CHUNK], dtype=np.float32)).to(device)
        labels[start : start + _ASSIGN_CHUNK] = _assign(part, centroids)[0].cpu().numpy()
    return centroids.cpu().numpy(), labels


def _assign(rows, centroids):
    """(labels, best similarity) for every row, one bounded similarity block at a time."""
    import torch

    labels = torch.empty(len(rows), dtype=torch.long, device=rows.device)
    best = torch.empty(len(rows), dtype=rows.dtype, device=rows.device)
    centroids_t = centroids.T.contiguous()
    for start in range(0, len(rows), _CHUNK):
        best[start : start + _CHUNK], labels[start : start + _CHUNK] = (rows[start : start + _CHUNK] @ centroids_t).max(
            dim=1
        )
    return labels, best


def _cluster_sums(rows, labels, k):
    import torch

    sums = torch.zeros(k, rows.shape[1], dtype=rows.dtype, device=rows.device)
    for start in range(0, len(rows), _CHUNK):
        one_hot = torch.nn.functional.one_hot(labels[start : start + _CHUNK], k).to(rows.dtype)
        sums += one_hot.T @ rows[start : start + _CHUNK]
    return sums
