"""Fit the appearance descriptor's dedup threshold on the sample generator's ground truth, and
check it on other seeds.

Pairs are the temporally adjacent windows dedup compares. A pair is a near-duplicate when the
later window's centre frame lies inside a `duplicate` block (a replay of the 5 s before, with a
small grey offset), so its centre is a replay of the earlier window's centre. Pairs whose
centres lie in `idle` or `frozen` blocks are left out (a still camera makes windows that look
alike whatever the label says) and counted apart. The threshold is chosen on the fit seeds,
midway between the most similar distinct pair and the least similar duplicate, and reported on
the check seeds.

Usage: python benchmarks/fit_appearance_dedup.py [--workdir /tmp/g2w_fit_dedup] [--videos 12]
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.appearance import AppearanceEmbedder
from g2w.curate.config import CurateConfig
from g2w.sample_data.generate import VideoSpec, write_sample
from g2w.video.sources import probe_row

STYLES = ("corridor", "topdown", "sidescroller", "racing")
FIT_SEED, CHECK_SEED = 31, 32


def _covers(spans: list[dict], t: float) -> bool:
    return any(s["start_s"] <= t < s["end_s"] for s in spans)


def pairs(path: str) -> list[tuple[float, str]]:
    """(cosine, label) for every adjacent window pair of one video; label duplicate/distinct/still."""
    rows = AnalyzeWindows().analyze_source(probe_row(path))
    truth = json.load(open(path[:-4] + ".json"))
    ok = [r for r in rows if r["status"] == "ok"]
    emb = AppearanceEmbedder().embed(np.stack([r["crop"] for r in ok]))
    out = []
    for (a, ra), (b, rb) in zip(enumerate(ok), list(enumerate(ok))[1:]):
        centre = (rb["start_s"] + rb["end_s"]) / 2
        still = truth["idle_spans"] + truth["frozen_spans"]
        if _covers(truth["duplicate_spans"], centre):
            label = "duplicate"
        elif _covers(still, centre) or _covers(still, (ra["start_s"] + ra["end_s"]) / 2):
            label = "still"
        else:
            label = "distinct"
        out.append((float(emb[a] @ emb[b]), label))
    return out


def build(workdir: str, seed: int, videos: int) -> list[str]:
    specs = [
        VideoSpec(seed, i, 480, 270, (30, 24)[i % 2], 30.0, STYLES[i % 4], False, "duplicate" if i % 2 == 0 else None)
        for i in range(videos)
    ]
    return [write_sample(s, os.path.join(workdir, str(seed))) for s in specs]


def collect(workdir: str, seed: int, videos: int) -> dict[str, np.ndarray]:
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        found = [p for batch in pool.map(pairs, build(workdir, seed, videos)) for p in batch]
    return {k: np.array([c for c, label in found if label == k]) for k in ("duplicate", "distinct", "still")}


def rates(sims: dict[str, np.ndarray], threshold: float) -> str:
    caught = (sims["duplicate"] > threshold).mean() if len(sims["duplicate"]) else float("nan")
    false = (sims["distinct"] > threshold).mean() if len(sims["distinct"]) else float("nan")
    still = (sims["still"] > threshold).mean() if len(sims["still"]) else float("nan")
    return (
        f"duplicates removed {caught:.0%} of {len(sims['duplicate'])}, distinct pairs removed {false:.1%} "
        f"of {len(sims['distinct'])}, still-camera pairs removed {still:.0%} of {len(sims['still'])}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", default="/tmp/g2w_fit_dedup")
    parser.add_argument("--videos", type=int, default=12)
    args = parser.parse_args()
    fit = collect(args.workdir, FIT_SEED, args.videos)
    check = collect(args.workdir, CHECK_SEED, args.videos)
    for name, sims in (("fit", fit), ("check", check)):
        for k, v in sims.items():
            if len(v):
                print(
                    f"{name} {k:9s} n={len(v):3d} cosine min/median/max {v.min():.4f}/{np.median(v):.4f}/{v.max():.4f}"
                )
    chosen = (fit["distinct"].max() + fit["duplicate"].min()) / 2
    print(f"\nchosen on the fit seeds: {chosen:.4f} (configured: {CurateConfig().appearance_dedup_threshold})")
    print(f"fit   (seed {FIT_SEED}): {rates(fit, chosen)}")
    print(f"check (seed {CHECK_SEED}): {rates(check, chosen)}")
    configured = CurateConfig().appearance_dedup_threshold
    print(f"check at the configured {configured}: {rates(check, configured)}")


if __name__ == "__main__":
    main()
