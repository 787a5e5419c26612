"""Renderer-only throughput: frames per second of layers + compositing + mask, no codecs.

A 720p five-second sample is planned once; its 150 frames are then evaluated (every widget's
motion, status fill, inventory state and popup animation) and composited over preloaded clean
frames, on the CPU (numpy) and, where CUDA is present, on the GPU (torch). The peer is the
smallest possible compositor: numpy blending one static full-frame RGBA overlay with the same
formula. Several seeds are averaged so the layout mix is typical. World-anchored elements are
tracked on each clean frame's luma as they are in rendering (where the luma is the decoded Y
plane, so it is computed here before timing starts).

Usage: python benchmarks/synth_render_fps.py [--samples 4] [--workdir /tmp/g2w_bench_render]
"""

from __future__ import annotations

import argparse
import os
import time

import cv2
import numpy as np

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import bootstrap_library
from g2w.hud.composite import Compositor
from g2w.hud.layers import Layer, LayerSource
from g2w.hud.plan import plan_sample
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.sample_data import VideoSpec, render_frames


def renderer_fps(library, frames, samples: int, device: str) -> tuple[float, float]:
    """(frames per second, mean layers per frame) over `samples` seeds."""
    total_s, total_frames, total_layers = 0.0, 0, 0
    compositor = Compositor(device)
    lumas = [cv2.cvtColor(f, cv2.COLOR_RGB2GRAY) for f in frames]
    for seed in range(samples):
        record = plan_sample(SeedStreams(seed), SynthProfile(), library)
        source = LayerSource(record, library.image)
        start = time.perf_counter()
        for i, frame in enumerate(frames):
            layers = source.frame(i, lumas[i])
            compositor(frame, layers)
            total_layers += len(layers)
        total_s += time.perf_counter() - start
        total_frames += len(frames)
    return total_frames / total_s, total_layers / total_frames


def static_overlay_fps(frames) -> float:
    h, w = frames[0].shape[:2]
    rng = np.random.default_rng(0)
    overlay = np.zeros((h, w, 4), np.uint8)
    overlay[..., :3] = rng.integers(0, 255, (h, w, 3))
    overlay[h // 20 : h // 3, w // 20 : w // 4, 3] = 230  # one widget-sized opaque-ish region
    layer = [Layer("static", overlay, 0, 0)]
    compositor = Compositor("cpu")
    start = time.perf_counter()
    for frame in frames:
        compositor(frame, layer)
    return len(frames) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_render")
    args = parser.parse_args()
    lib_dir = os.path.join(args.workdir, "lib")
    bootstrap_library(lib_dir, per_label=4, seed=0)
    library = AssetLibrary.open(lib_dir)
    frames = list(render_frames(VideoSpec(0, 0, 1280, 720, 30, 5.0, "topdown", False, None)))
    peer = static_overlay_fps(frames)
    cpu, layers = renderer_fps(library, frames, args.samples, "cpu")
    print(f"720p, 150 frames x {args.samples} samples, {layers:.1f} layers per frame on average")
    print(f"peer (numpy, one static full-frame RGBA overlay): {peer:.1f} frames/s")
    print(f"ours (cpu, numpy):  {cpu:.1f} frames/s   ours / peer = {cpu / peer:.2f}")
    if Compositor("auto").device == "cuda":
        gpu, _ = renderer_fps(library, frames, args.samples, "cuda")
        print(f"ours (cuda, torch): {gpu:.1f} frames/s   ours / peer = {gpu / peer:.2f}")


if __name__ == "__main__":
    main()
