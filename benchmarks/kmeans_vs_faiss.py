"""Spherical k-means at the paper's settings (K = min(2048, N, floor(4 sqrt N)), 15 iterations,
re-normalized centroids) on 200,000 x 512 unit vectors: ours (faiss search on CPU, torch on GPU)
against faiss's own spherical k-means on the same data, same K and iterations, both on this
machine's CPUs. Also prints each result's mean cosine to its centroid, so speed is not bought
with quality, and whether a second run of ours with the same seed gives identical clusters.

Usage: python benchmarks/kmeans_vs_faiss.py [--n 200000] [--dim 512] [--device cpu]
"""

from __future__ import annotations

import argparse
import time

import faiss
import numpy as np

from g2w.curate.kmeans import num_clusters, spherical_kmeans


def data(n: int, dim: int, seed: int = 0) -> np.ndarray:
    """Unit vectors around 3000 random directions: clustered, like embeddings of many scenes."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((3000, dim)).astype(np.float32)
    x = centers[rng.integers(0, 3000, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def quality(x: np.ndarray, centroids: np.ndarray) -> float:
    best = np.concatenate([(x[i : i + 20000] @ centroids.T).max(axis=1) for i in range(0, len(x), 20000)])
    return float(best.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    x = data(args.n, args.dim)
    k = num_clusters(len(x), 2048)

    start = time.perf_counter()
    km = faiss.Kmeans(args.dim, k, niter=15, spherical=True, seed=0, max_points_per_centroid=1 << 30)
    km.train(x)
    km.index.search(x, 1)  # every point's label, as ours returns: the same outputs on both sides
    peer = time.perf_counter() - start
    peer_q = quality(x, km.centroids)

    start = time.perf_counter()
    centroids, _ = spherical_kmeans(x, k_max=2048, iters=15, seed=0, device=args.device)
    ours = time.perf_counter() - start
    ours_q = quality(x, centroids)
    again = spherical_kmeans(x, k_max=2048, iters=15, seed=0, device=args.device)[0]

    print(f"N={len(x)} d={args.dim} K={k} iterations=15")
    print(f"faiss spherical k-means:   {peer:7.2f} s   mean cosine to centroid {peer_q:.4f}")
    print(f"g2w spherical_kmeans ({args.device}): {ours:7.2f} s   mean cosine to centroid {ours_q:.4f}")
    print(f"second run of ours with the same seed identical: {np.array_equal(centroids, again)}")
    print(f"ratio ours/faiss (time): {ours / peer:.2f}")


if __name__ == "__main__":
    main()
