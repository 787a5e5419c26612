"""GameCleaner on CPU with the tiny preset: precache throughput and training steps per second,
each against a bare peer run in the same process on the same inputs.

- precache: the precache step (decode + resample + VAE + MLLM + shard write) in pairs/s, against
  the bare encoders on already-decoded frames (so the ratio is the cost of I/O around the models);
- training: the harness loop (`g2w.train.loop`, in-process session, checkpoints every 5 steps)
  in steps/s, against a plain torch loop with the same model, loss, batch and AdamW.
Pairs are sample videos used as both source and target (throughput does not depend on content).

Usage: heavy --exclusive python benchmarks/gamecleaner_step.py [--pairs 4] [--steps 10]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq
import torch

from g2w.jobs.gamecleaner_precache import PrecachePairs
from g2w.models.gamecleaner.clips import load_pair
from g2w.models.gamecleaner.task import GameCleanerTask
from g2w.sample_data import generate_samples
from g2w.train import FitConfig
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession


def make_pairs(root: str, count: int) -> str:
    videos = generate_samples(os.path.join(root, "raw"), count, 0, 3.0)
    rows = []
    for k, video in enumerate(videos):
        sample = os.path.join(root, "synth", "samples", f"p{k}")
        os.makedirs(sample)
        for name in ("hud.mp4", "clean.mp4"):
            shutil.copyfile(video, os.path.join(sample, name))
        rows.append({"sample_id": f"p{k}", "status": "ok"})
    pq.write_table(pa.Table.from_pylist(rows), os.path.join(root, "synth", "manifest.parquet"))
    return os.path.join(root, "synth")


def precache(synth: str, cache: str) -> dict:
    step = PrecachePairs("tiny", cache)
    step.setup()
    os.makedirs(os.path.join(cache, "shards"))
    ids = sorted(os.listdir(os.path.join(synth, "samples")))
    dirs = [os.path.join(synth, "samples", i) for i in ids]
    start = time.perf_counter()
    step({"pair_id": ids, "sample_dir": dirs})
    ours = len(ids) / (time.perf_counter() - start)
    frames = [load_pair(d, step.config)[0] for d in dirs]
    start = time.perf_counter()
    for f in frames:
        step.encoders.encode(f), step.encoders.encode(f), step.encoders.encode(f[:1])
        step.encoders.mllm_states(f, step.condition.queries)
    peer = len(ids) / (time.perf_counter() - start)
    pq.write_table(
        pa.Table.from_pylist(
            [{"status": "ok", "path": os.path.join(cache, "shards", f"{i}.safetensors")} for i in ids]
        ),
        os.path.join(cache, "index.parquet"),
    )
    with open(os.path.join(cache, "cache.json"), "w") as f:
        json.dump({"kind": "states"}, f)
    return {
        "precache_pairs_per_s": round(ours, 3),
        "bare_encoders_pairs_per_s": round(peer, 3),
        "ratio": round(ours / peer, 3),
    }


def training(cache: str, run: str, steps: int) -> dict:
    task = GameCleanerTask(cache, validation_pairs=0)  # every pair trains, like the bare loop below
    cfg = FitConfig(run, steps=steps, global_batch=2, micro_batch=2, checkpoint_every=5, log_every=1)
    session = LocalSession(run)
    start = time.perf_counter()
    train_worker(task, cfg, session)
    wall = steps / (time.perf_counter() - start)
    # per-step times from the harness's own logs: the end-of-run validation sampling is excluded
    step_s = [cfg.global_batch / m["samples_per_s"] for m in session.metrics]
    ours = len(step_s) / sum(step_s)
    model = task.build_model(torch.device("cpu"))
    opt = torch.optim.AdamW(model.trainable().values(), lr=cfg.lr)
    start = time.perf_counter()
    for s in range(steps):
        batch = task.load_batch([s % task.num_examples(), (s + 1) % task.num_examples()], torch.device("cpu"))
        loss = task.loss(model, batch, torch.Generator().manual_seed(s))
        loss.backward()
        opt.step()
        opt.zero_grad()
    peer = steps / (time.perf_counter() - start)
    return {
        "harness_steps_per_s": round(ours, 3),
        "harness_wall_steps_per_s_incl_checkpoints_and_validation": round(wall, 3),
        "bare_loop_steps_per_s": round(peer, 3),
        "ratio": round(ours / peer, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as root:
        synth = make_pairs(root, args.pairs)
        result = {
            "threads": 1,
            "precache": precache(synth, os.path.join(root, "cache")),
            "training": training(os.path.join(root, "cache"), os.path.join(root, "run"), args.steps),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
