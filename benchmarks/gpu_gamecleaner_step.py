"""GameCleaner at real size on one CUDA device, random weights: the 1.3B (Wan2.1) and TI2V-5B
(Wan2.2) DiTs with LoRA rank 64, 81 frames at 480p and 720p, bf16 autocast, gradient
checkpointing. Reports forward+backward seconds per sample, peak memory, MFU (FLOPs from
`g2w.models.gamecleaner.flops` over the device's dense bf16 peak) and sampler seconds per step
(one no-grad forward). The MLLM and VAE are not run: their outputs are precached in training.

Usage: python benchmarks/gpu_gamecleaner_step.py [--presets wan21-1.3b wan22-ti2v-5b] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from g2w.models.gamecleaner import flow
from g2w.models.gamecleaner.flops import forward_flops, training_flops
from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset
from g2w.train.config import FitConfig
from g2w.train.loop import peak_flops

SIZES = {"480p": (832, 480), "720p": (1280, 704)}


def _timed(fn, repeats: int) -> float:
    fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / repeats


def measure(preset: str, size: str, repeats: int) -> dict:
    width, height = SIZES[size]
    cfg = get_preset(preset).with_options(width=width, height=height)
    model = load_gamecleaner(None, cfg, dtype=torch.bfloat16).cuda()  # as training loads it on a GPU
    model.dit.transformer.enable_gradient_checkpointing()
    shape = (1, *cfg.latent_shape())
    g = torch.Generator("cuda").manual_seed(0)
    clean, source = torch.randn(shape, device="cuda", generator=g), torch.randn(shape, device="cuda", generator=g)
    reference = torch.randn((1, shape[1], 1, *shape[3:]), device="cuda", generator=g)
    states = torch.randn(1, cfg.num_queries, model.condition.queries.shape[1], device="cuda", generator=g)

    def predict(z, t, _c, s, r):
        return model(z, t, s, r, states=states)

    def train_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = flow.flow_matching_loss(predict, clean, None, source, reference, g)
        loss.backward()

    def sampler_step():
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
            predict(clean, torch.full((1,), 0.5, device="cuda"), None, source, reference)

    torch.cuda.reset_peak_memory_stats()
    step_s = _timed(train_step, repeats)
    peak_gib = torch.cuda.max_memory_allocated() / 2**30
    sample_s = _timed(sampler_step, repeats)
    peak = peak_flops(FitConfig("unused"), torch.device("cuda"))
    train_flops = training_flops(cfg, train_connector=model.train_connector)
    result = {
        "preset": preset,
        "size": f"{width}x{height}",
        "frames": cfg.frames,
        "train_step_s": round(step_s, 3),
        "peak_memory_gib": round(peak_gib, 1),
        "sampler_s_per_step": round(sample_s, 3),
        "train_tflops": round(train_flops / 1e12, 1),
        "mfu": round(train_flops / step_s / peak, 3) if peak else None,
        "sampler_mfu": round(forward_flops(cfg) / sample_s / peak, 3) if peak else None,
        "device": torch.cuda.get_device_name(),
    }
    torch.cuda.empty_cache()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", nargs="+", default=["wan21-1.3b", "wan22-ti2v-5b"])
    parser.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("needs a CUDA device")
    for preset in args.presets:
        for size in args.sizes:
            print(json.dumps(measure(preset, size, args.repeats)), flush=True)


if __name__ == "__main__":
    main()
