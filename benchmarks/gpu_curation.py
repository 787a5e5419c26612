"""Curation on a CUDA machine: the whole job end to end through Ray Data, then its GPU parts alone.

End to end (`run_curate` on generated 720p sources, CLIP on the GPU): source frames per second
and windows per second of the analyse+embed stage, the GPU's utilisation while it runs (sampled
with nvidia-smi), every stage's time, and which stage bounds throughput: the CPU front end when
the CLIP actor's GPU mostly waits, CLIP when it is busy. Then the parts alone: CLIP ViT-B/16
embedding throughput (fp16 autocast) against the same model on the CPU cores (the end-to-end
windows per second are compared with it), spherical k-means on GPU at the paper's settings
(200,000 and 1,000,000 x 512) against the CPU path, determinism of both, and whether NVENC is
usable (H100/H200 have no NVENC engine, so encoding must fall back to libx264).

`--device cpu --sources 2 --seconds 10 --parts none` runs the end-to-end part on a machine
without a GPU (a check that the script works; its figures say nothing about a GPU node). Asked
for CUDA (the default, or any `--parts all` run) where torch sees none, it stops at once with
that advice instead of failing inside the job.

Usage: python benchmarks/gpu_curation.py [--sources 32] [--seconds 60] [--parts all|none] [--cpu-images 32]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import threading
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import torch

from g2w.curate.config import CurateConfig
from g2w.curate.kmeans import num_clusters, spherical_kmeans
from g2w.jobs.curate import run_curate
from g2w.models.clip_embedder import ClipEmbedder, ClipSpec
from g2w.runtime.ray_init import init_ray
from g2w.sample_data import VideoSpec, write_sample
from g2w.sample_data.generate import STYLES


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


class GpuSampler:
    """(time, GPU utilisation percent) every half second while running, from nvidia-smi."""

    def __init__(self):
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
            )
            if out.returncode == 0 and out.stdout.strip():
                self.samples.append((time.perf_counter(), float(out.stdout.split()[0])))

    def __enter__(self):
        if shutil.which("nvidia-smi"):
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def end_to_end(sources: int, seconds: float, device: str, workdir: str) -> float:
    """Run the curation job on generated sources; prints its throughput; returns windows/s."""
    specs = [
        VideoSpec(0, 900 + i, 1280, 720, 30, seconds, STYLES[i % len(STYLES)], i % 3 == 0, None) for i in range(sources)
    ]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=min(sources, os.cpu_count() or 1)) as pool:  # one source per core
        paths = list(pool.map(write_sample, specs, [os.path.join(workdir, "sources")] * sources))
    print(
        f"sources: {sources} x {seconds:.0f} s generated (or found) in {time.perf_counter() - start:.0f} s", flush=True
    )
    out = os.path.join(workdir, "curated")
    shutil.rmtree(out, ignore_errors=True)
    init_ray()  # started here, so the job's stage clock starts when run_curate does
    with GpuSampler() as gpu:
        started = time.perf_counter()
        summary = run_curate(paths, out, CurateConfig(device=device))
    timings, rate = summary["timings_s"], summary["throughput"]
    windows_per_s = summary["counts"]["windows"] / timings["analyse_embed"]
    stage_start = started + timings["probe"]  # stages run one after another: probe, analyse+embed, ...
    util = np.array([u for t, u in gpu.samples if stage_start <= t <= stage_start + timings["analyse_embed"]])
    util = util if len(util) else None
    print(
        f"end to end: {len(paths)} sources x {seconds:.0f} s 720p30, {summary['counts']['windows']} windows, "
        f"CLIP on {device}, {os.cpu_count()} CPUs"
    )
    print(f"  stages (s): {timings}")
    print(f"  analyse+embed: {rate['source_frames_per_s']:.0f} source frames/s, {windows_per_s:.1f} windows/s")
    if util is None:
        print("  GPU utilisation: not measured (no nvidia-smi)")
    else:
        busy = float(np.mean(util))
        bound = "CLIP on the GPU" if busy >= 70 else "the CPU front end (decode + checks): the GPU waits for crops"
        print(f"  GPU utilisation during analyse+embed: mean {busy:.0f} %, peak {util.max():.0f} %; bound by {bound}")
    return windows_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--parts", choices=("all", "none"), default="all", help="also measure CLIP and k-means alone")
    parser.add_argument("--cpu-images", type=int, default=32)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_gpu_curation")
    args = parser.parse_args()
    if (args.device == "cuda" or args.parts == "all") and not torch.cuda.is_available():
        parser.error(
            "torch sees no CUDA device here; on a CPU-only machine run "
            "--device cpu --sources 2 --seconds 10 --parts none to check the script"
        )
    windows_per_s = end_to_end(args.sources, args.seconds, args.device, args.workdir)
    if args.parts == "none":
        return
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    crops = np.random.default_rng(1).integers(0, 256, (256, 224, 224, 3), dtype=np.uint8)

    gpu_rate, gpu_out = images_per_s(embedder("cuda"), crops, repeats=10)
    cpu_rate, cpu_out = images_per_s(embedder("cpu"), crops[: args.cpu_images], repeats=1)
    agreement = float(np.min(np.sum(gpu_out[: args.cpu_images] * cpu_out, axis=1)))
    print(
        f"CLIP ViT-B/16: GPU {gpu_rate:8.1f} images/s (fp16 autocast, batch 256); "
        f"CPU {cpu_rate:6.1f} images/s ({torch.get_num_threads()} threads); ratio GPU/CPU {gpu_rate / cpu_rate:.0f}x"
    )
    print(
        f"  GPU vs CPU embeddings of the same crops: min cosine {agreement:.5f}; norms "
        f"{np.linalg.norm(gpu_out, axis=1).min():.4f}..{np.linalg.norm(gpu_out, axis=1).max():.4f}"
    )

    for n in (200_000, 1_000_000):
        x = unit_vectors(n, 512)
        torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        centroids, labels = spherical_kmeans(x, device="cuda", seed=0)
        gpu_s = time.perf_counter() - start
        again = spherical_kmeans(x, device="cuda", seed=0)
        same = np.array_equal(labels, again[1]) and np.array_equal(centroids, again[0])
        peak = torch.cuda.max_memory_allocated() / 2**30
        print(
            f"k-means N={n} K={num_clusters(n, 2048)} 15 iterations: GPU {gpu_s:6.2f} s, "
            f"peak GPU memory {peak:.2f} GiB (data {x.nbytes / 2**30:.2f} GiB), repeat identical: {same}"
        )
    x = unit_vectors(200_000, 512)
    start = time.perf_counter()
    spherical_kmeans(x, device="cpu", seed=0)
    print(f"k-means N=200000 on this machine's CPUs: {time.perf_counter() - start:6.2f} s")

    from g2w.video.encode import choose_encoder, nvenc_available

    print(f"NVENC usable: {nvenc_available()}; encoder 'auto' resolves to {choose_encoder('auto')}")
    print(f"ratio end-to-end windows/s / CLIP-alone images/s: {windows_per_s / gpu_rate:.3f}")


if __name__ == "__main__":
    main()
