"""GameCleaner's samplers side by side: UniPC and DPM-Solver++ at few steps against 50-step Euler,
on the same model, the same source latent and the same starting noise.

The figure of quality is the PSNR between a sampler's final latent and 50-step Euler's (the
training grid's reference solution), on the latent's own scale (peak-to-peak of the reference);
the figure of cost is seconds per DiT call, which every sampler makes once per step. The model is
the `tiny` preset with random weights plus its untrained LoRA (no trained run ships with g2w),
so the comparison is of the solvers on one fixed, nonlinear field, not of removal quality.

Usage: python benchmarks/gamecleaner_samplers.py [--preset tiny] [--steps 8,12,16] [--results docs/results/gamecleaner_samplers.md]
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import torch

from g2w.io.results_page import markdown_table, write_results_page
from g2w.models.gamecleaner.model import GameCleaner, build_transformer
from g2w.models.gamecleaner.presets import get_preset
from g2w.models.gamecleaner.samplers import sample


def psnr(a: torch.Tensor, ref: torch.Tensor) -> float:
    mse = float(((a - ref) ** 2).mean())
    peak = float(ref.max() - ref.min())
    return math.inf if mse == 0 else 10 * math.log10(peak**2 / mse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="tiny")
    parser.add_argument("--steps", default="8,12,16", help="few-step settings to compare")
    parser.add_argument("--results", default=None, help="write the Markdown page here")
    args = parser.parse_args()
    torch.set_num_threads(1)
    cfg = get_preset(args.preset)
    model = GameCleaner(cfg, build_transformer(cfg, None, seed=0), train_connector=False).eval()
    g = torch.Generator().manual_seed(0)
    source = torch.randn((1, *cfg.latent_shape()), generator=g)
    context = torch.randn((1, cfg.num_queries, cfg.dit_width), generator=g)

    def dit(z, t, c, s, r):
        return model(z, t, s, r, context=c)

    def run(sampler: str, steps: int) -> tuple[torch.Tensor, float]:
        start = time.perf_counter()
        out = sample(dit, context, source, None, sampler, steps, generator=torch.Generator().manual_seed(1))
        return out, (time.perf_counter() - start) / steps

    reference, euler_s = run("euler", 50)
    rows = [["euler", 50, "reference", round(euler_s, 4)]]
    for steps in (int(s) for s in args.steps.split(",")):
        for sampler in ("euler", "unipc", "dpm++"):
            out, per_step = run(sampler, steps)
            rows.append([sampler, steps, round(psnr(out, reference), 1), round(per_step, 4)])
            print(rows[-1], flush=True)
    body = (
        markdown_table(["sampler", "steps", "PSNR vs 50-step Euler (dB)", "s per step (1 CPU thread)"], rows)
        + f"\n\nPreset `{cfg.name}`, latent {tuple(source.shape)}, random weights; one DiT call per step for every"
        " sampler, so a clip's cost is steps x s per step."
    )
    print(body)
    if args.results:
        command = "python benchmarks/gamecleaner_samplers.py " + " ".join(sys.argv[1:])
        notes = [
            "Random-initialised model: solver agreement on one field, not removal quality; rerun on a trained run."
        ]
        write_results_page(args.results, "GameCleaner samplers: few steps against 50-step Euler", command, body, notes)


if __name__ == "__main__":
    main()
