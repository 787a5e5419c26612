"""GameCleaner at real size on one CUDA device, random weights: the 1.3B (Wan2.1) DiT at 480p and
the TI2V-5B (Wan2.2) DiT at 704p, LoRA rank 64, 81 frames, a bf16 base under bf16 autocast,
gradient checkpointing, as `g2w gamecleaner train --use-gpu` runs them.

Reports per configuration:
- forward+backward seconds of one training sample, the peak memory of that step, and its MFU
  (FLOPs from `g2w.models.gamecleaner.flops`, the frozen-base count, over the device's dense bf16
  peak);
- sampler seconds per step, the way removal samples: the whole `samplers.sample` call (every DiT
  call and the solver's own work) timed end to end and divided by its steps, for 50-step Euler
  and for the few-step multistep solver, after one untimed warm-up call;
- the seconds of the first training step (with `--compile` that includes compiling the blocks).

`--attention BACKEND` and `--compile` are the removal and training options of the same names
(`g2w.models.gamecleaner.speed`). The MLLM and VAE are not run: training precaches their outputs
and removal runs them once per window, not per step. `--dry-run` runs the same code on the tiny
preset on CPU in seconds, to check the script before it costs GPU time. `--results PATH` writes a
Markdown page with the command, commit and machine.

Usage: python benchmarks/gpu_gamecleaner_step.py [--configs wan21-1.3b@480p wan22-ti2v-5b@704p] [--repeats 3]
       [--attention BACKEND] [--compile] [--dry-run] [--results docs/results/gpu_gamecleaner_step.md]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from g2w.io.results_page import markdown_table, write_results_page
from g2w.models.gamecleaner import flow
from g2w.models.gamecleaner.flops import forward_flops, training_flops
from g2w.models.gamecleaner.model import base_dtype, load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset
from g2w.models.gamecleaner.samplers import FEW_STEPS, sample
from g2w.models.gamecleaner.speed import apply_speed
from g2w.train.config import FitConfig
from g2w.train.loop import peak_flops

SIZES = {"480p": (832, 480), "704p": (1280, 704)}
DEFAULT_CONFIGS = ["wan21-1.3b@480p", "wan22-ti2v-5b@704p"]
FEW_STEP_SAMPLER = "unipc"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _timed(fn, repeats: int, device: torch.device) -> float:
    """Mean seconds of `fn` over `repeats` calls (the caller has warmed it up)."""
    _sync(device)
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    _sync(device)
    return (time.perf_counter() - start) / repeats


def parse_config(text: str) -> tuple[str, str | None]:
    """`preset@size` (a size of SIZES) or a bare preset at its own size."""
    preset, _, size = text.partition("@")
    get_preset(preset)
    if size and size not in SIZES:
        raise argparse.ArgumentTypeError(f"{text}: size one of {', '.join(SIZES)}")
    return preset, size or None


def measure(
    preset: str,
    size: str | None,
    repeats: int,
    device: torch.device,
    attention: str | None = None,
    compile: bool = False,
    euler_steps: int = flow.STEPS,
    few_steps: int = FEW_STEPS,
) -> dict:
    cfg = get_preset(preset)
    if size is not None:
        width, height = SIZES[size]
        cfg = cfg.with_options(width=width, height=height)
    dtype = base_dtype(device)  # bf16 on CUDA, as training loads it there
    model = load_gamecleaner(None, cfg, dtype=dtype).to(device)
    model.dit.transformer.enable_gradient_checkpointing()
    apply_speed(model.dit.transformer, attention, compile, device.type)
    shape = (1, *cfg.latent_shape())
    g = torch.Generator(device).manual_seed(0)
    clean, source = torch.randn(shape, device=device, generator=g), torch.randn(shape, device=device, generator=g)
    reference = torch.randn((1, shape[1], 1, *shape[3:]), device=device, generator=g)
    states = torch.randn(1, cfg.num_queries, model.condition.queries.shape[1], device=device, generator=g)

    def autocast():
        return torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")

    def predict(z, t, _c, s, r):
        return model(z, t, s, r, states=states)

    def train_step():
        with autocast():
            loss = flow.flow_matching_loss(predict, clean, None, source, reference, g)
        loss.backward()
        model.zero_grad(set_to_none=True)

    with torch.no_grad(), autocast():
        context = model.context(states)

    def dit(z, t, c, s, r):
        return model(z, t, s, r, context=c)

    def sampling(sampler: str, steps: int):
        def run():
            with autocast():
                sample(dit, context, source, None, sampler, steps, generator=torch.Generator(device).manual_seed(1))

        return run

    _sync(device)
    start = time.perf_counter()
    train_step()  # warm-up: compilation, kernel selection, allocator
    _sync(device)
    first_s = time.perf_counter() - start
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    step_s = _timed(train_step, repeats, device)
    peak_gib = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None
    per_step = {}
    for sampler, steps in (("euler", euler_steps), (FEW_STEP_SAMPLER, few_steps)):
        sampling(sampler, 2)()  # warm-up of the no-grad graph and the solver
        per_step[(sampler, steps)] = _timed(sampling(sampler, steps), 1, device) / steps
    peak = peak_flops(FitConfig("unused"), device)
    train_flops = training_flops(cfg, True, model.train_connector)
    sample_flops = forward_flops(cfg, reference=False)
    (euler_key, euler_s), (few_key, few_s) = per_step.items()
    result = {
        "preset": preset,
        "size": f"{cfg.width}x{cfg.height}",
        "frames": cfg.frames,
        "attention": attention or "default",
        "compile": compile,
        "first_step_s": round(first_s, 3),
        "train_step_s": round(step_s, 4),
        "peak_memory_gib": round(peak_gib, 1) if peak_gib is not None else None,
        "train_tflops": float(f"{train_flops / 1e12:.4g}"),
        "mfu": round(train_flops / step_s / peak, 3) if peak else None,
        f"{euler_key[0]}{euler_key[1]}_s_per_step": round(euler_s, 4),
        f"{few_key[0]}{few_key[1]}_s_per_step": round(few_s, 4),
        "sampler_mfu": round(sample_flops / euler_s / peak, 3) if peak else None,
        "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
    }
    return result


def page(results: list[dict]) -> str:
    keys = list(results[0])
    return markdown_table(keys, [[r.get(k) for k in keys] for r in results]) + (
        "\n\nRandom weights; one training sample per step (batch 1, 81 frames at the named size for the real"
        " presets) with gradient checkpointing; sampler seconds per step are whole sampling calls divided by"
        " their steps, without a reference."
    )


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--configs", nargs="+", type=parse_config, default=None, metavar="PRESET@SIZE")
    parser.add_argument("--repeats", type=int, default=3, help="timed training steps after the warm-up")
    parser.add_argument("--attention", default=None, metavar="BACKEND", help="diffusers attention backend")
    parser.add_argument("--compile", action="store_true", help="torch.compile the DiT's blocks (regional)")
    parser.add_argument("--dry-run", action="store_true", help="the tiny preset on CPU, in seconds")
    parser.add_argument("--results", default=None, metavar="PATH", help="write the Markdown page here")
    args = parser.parse_args(argv)
    if args.dry_run:
        device, configs = torch.device("cpu"), args.configs or [("tiny", None)]
    elif not torch.cuda.is_available():
        parser.exit(2, "needs a CUDA device; check the script on CPU with --dry-run\n")
    else:
        device, configs = torch.device("cuda"), args.configs or [parse_config(c) for c in DEFAULT_CONFIGS]
    results = []
    for preset, size in configs:
        results.append(measure(preset, size, args.repeats, device, args.attention, args.compile))
        print(json.dumps(results[-1]), flush=True)
        if device.type == "cuda":  # the last model's memory back before the next one is built
            torch.cuda.empty_cache()
    if args.results:
        command = "python benchmarks/gpu_gamecleaner_step.py " + " ".join(sys.argv[1:] if argv is None else argv)
        notes = ["A dry run: the tiny preset on CPU, to check the script; not a measurement of GameCleaner."] * (
            args.dry_run
        )
        write_results_page(
            args.results, "GameCleaner training step and sampler on one GPU", command, page(results), notes
        )
    return results


if __name__ == "__main__":
    main()
