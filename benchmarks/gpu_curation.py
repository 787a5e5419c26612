"""The GPU side of curation, measured on a CUDA machine: CLIP ViT-B/16 embedding throughput
(fp16 autocast) against the same model on this machine's CPU cores, spherical k-means on GPU at
the paper's settings (200,000 and 1,000,000 x 512) against the CPU path, determinism of both, and
whether NVENC is usable (H100/H200 have no NVENC engine, so encoding must fall back to libx264).

Usage: python benchmarks/gpu_curation.py [--cpu-images 32]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from g2w.curate.kmeans import num_clusters, spherical_kmeans
from g2w.models.clip_embedder import ClipEmbedder, ClipSpec


def embedder(device: str) -> ClipEmbedder:
    return ClipEmbedder(ClipSpec("ViT-B-16", None, device))  # seeded: the same weights on both


def images_per_s(model: ClipEmbedder, crops: np.ndarray, repeats: int) -> tuple[float, np.ndarray]:
    out = model.embed(crops)  # warm-up (and the result to compare)
    if model.device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        model.embed(crops)
    if model.device == "cuda":
        torch.cuda.synchronize()
    return repeats * len(crops) / (time.perf_counter() - start), out


def unit_vectors(n: int, dim: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    centers = rng.standard_normal((3000, dim)).astype(np.float32)
    x = centers[rng.integers(0, 3000, n)] + 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu-images", type=int, default=32)
    args = parser.parse_args()
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    crops = np.random.default_rng(1).integers(0, 256, (256, 224, 224, 3), dtype=np.uint8)

    gpu_rate, gpu_out = images_per_s(embedder("cuda"), crops, repeats=10)
    cpu_rate, cpu_out = images_per_s(embedder("cpu"), crops[: args.cpu_images], repeats=1)
    agreement = float(np.min(np.sum(gpu_out[: args.cpu_images] * cpu_out, axis=1)))
    print(f"CLIP ViT-B/16: GPU {gpu_rate:8.1f} images/s (fp16 autocast, batch 256); "
          f"CPU {cpu_rate:6.1f} images/s ({torch.get_num_threads()} threads); ratio GPU/CPU {gpu_rate / cpu_rate:.0f}x")
    print(f"  GPU vs CPU embeddings of the same crops: min cosine {agreement:.5f}; norms "
          f"{np.linalg.norm(gpu_out, axis=1).min():.4f}..{np.linalg.norm(gpu_out, axis=1).max():.4f}")

    for n in (200_000, 1_000_000):
        x = unit_vectors(n, 512)
        torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        centroids, labels = spherical_kmeans(x, device="cuda", seed=0)
        gpu_s = time.perf_counter() - start
        again = spherical_kmeans(x, device="cuda", seed=0)
        same = np.array_equal(labels, again[1]) and np.array_equal(centroids, again[0])
        peak = torch.cuda.max_memory_allocated() / 2**30
        print(f"k-means N={n} K={num_clusters(n, 2048)} 15 iterations: GPU {gpu_s:6.2f} s, "
              f"peak GPU memory {peak:.2f} GiB (data {x.nbytes / 2**30:.2f} GiB), repeat identical: {same}")
    x = unit_vectors(200_000, 512)
    start = time.perf_counter()
    spherical_kmeans(x, device="cpu", seed=0)
    print(f"k-means N=200000 on this machine's CPUs: {time.perf_counter() - start:6.2f} s")

    from g2w.video.encode import choose_encoder, nvenc_available

    print(f"NVENC usable: {nvenc_available()}; encoder 'auto' resolves to {choose_encoder('auto')}")


if __name__ == "__main__":
    main()
