"""The GameCleaner latent precache: synthesis pairs -> VAE latents + frozen condition, on Ray Data.

For every ok sample of each synthesis output (`SYNTH/manifest.parquet`), an actor (one GPU each
where the cluster has GPUs) decodes the pair at the preset's frames, rate and size, and writes
`CACHE/shards/<pair_id>.safetensors` with the source, target and reference latents and the frozen
part of the condition:
- `context` (connector output) when the run will start from a checkpoint (connector frozen);
- `states` (MLLM states at the query positions) when it starts from scratch (connector trains).
`CACHE/index.parquet` has one row per pair, errors included (mismatched or undecodable pairs),
and `CACHE/cache.json` says what the shards hold. Shards are written atomically, so a rerun skips
finished pairs.

Shards hold bf16: the latents and condition are bf16 where the training step runs (under bf16
autocast), and half the bytes per pair is half a large cache's storage and read bandwidth. The
index names each shard relative to the cache root, so the cache is one movable tree: copied to a
bucket (`aws s3 sync CACHE s3://...`), every training worker reads it from the URI with no shared
POSIX path.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
import torch
from safetensors.torch import save_file

from g2w.jobs.options import PrecacheOptions
from g2w.runtime.capacity import gpus_possible
from g2w.runtime.pipeline import apply_steps, dataset_from_rows, write_parquet
from g2w.runtime.ray_init import init_ray
from g2w.step import Batch, Resources, Step, item_errors, rows_batch
from g2w.video.errors import VideoError

log = logging.getLogger(__name__)

INDEX_SCHEMA = pa.schema(
    [
        ("pair_id", pa.string()),
        ("sample_dir", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("message", pa.string()),
        ("path", pa.string()),
        ("skipped", pa.bool_()),
        ("seconds", pa.float64()),
    ]
)


SHARD_DTYPE = torch.bfloat16


def shard_name(pair_id: str) -> str:
    """A pair's shard, relative to the cache root (what the index records)."""
    return f"shards/{pair_id}.safetensors"


def cache_kind(checkpoint: str | None) -> str:
    return "context" if checkpoint else "states"


@dataclass
class PrecachePairs(Step):
    """Batch of `pair_id`, `sample_dir` -> index rows; shards are written beside."""

    preset: str
    out_dir: str
    checkpoint: str | None = None
    base_dir: str | None = None
    mllm_dir: str | None = None
    seed: int = 0
    use_gpu: bool = False

    def resources(self) -> Resources:
        return Resources(num_cpus=1, num_gpus=1 if self.use_gpu else 0, batch_size=1)

    def setup(self) -> None:
        from g2w.models.gamecleaner.encoders import Encoders
        from g2w.models.gamecleaner.model import checkpoint_config, load_condition
        from g2w.models.gamecleaner.presets import get_preset

        self.config = checkpoint_config(self.checkpoint) if self.checkpoint else get_preset(self.preset)
        device = "cuda" if self.use_gpu and torch.cuda.is_available() else "cpu"
        self.encoders = Encoders(self.config, self.base_dir, self.mllm_dir, device, self.seed)
        self.condition = load_condition(self.checkpoint, self.config, self.seed).to(device)

    def encode_pair(self, sample_dir: str) -> dict[str, torch.Tensor]:
        from g2w.models.gamecleaner.clips import load_pair

        source, target, reference = load_pair(sample_dir, self.config)
        enc = self.encoders
        tensors = {
            "source": enc.encode(source)[0],
            "target": enc.encode(target)[0],
            "reference": enc.encode(reference)[0],
        }
        states = enc.mllm_states(source, self.condition.queries)
        cond = self.condition(states.to(self.condition.queries.dtype)) if self.checkpoint else states
        tensors[cache_kind(self.checkpoint)] = cond[0]
        return {k: v.to(SHARD_DTYPE).cpu().contiguous() for k, v in tensors.items()}

    def __call__(self, batch: Batch) -> Batch:
        from g2w.models.gamecleaner.clips import PairError

        rows = []
        for pair_id, sample_dir in zip(batch["pair_id"], batch["sample_dir"]):
            path = os.path.join(self.out_dir, shard_name(str(pair_id)))
            row = {
                "pair_id": str(pair_id),
                "sample_dir": str(sample_dir),
                "status": "ok",
                "reason": "",
                "message": "",
                "path": shard_name(str(pair_id)),
                "skipped": os.path.exists(path),
                "seconds": 0.0,
            }
            if not row["skipped"]:
                with item_errors(
                    row, "pair_unreadable", {PairError: "", VideoError: "pair_"}, (OSError, ValueError, IndexError)
                ):
                    tmp = path + ".partial"
                    save_file(self.encode_pair(str(sample_dir)), tmp)
                    os.replace(tmp, path)
            rows.append(row)
        return rows_batch(rows, INDEX_SCHEMA.names)


def list_pairs(synth_dirs: list[str]) -> list[dict]:
    """Every ok synthesis sample as {pair_id, sample_dir}; pair ids are the sample ids."""
    pairs = []
    for folder in synth_dirs:
        table = pq.read_table(os.path.join(folder, "manifest.parquet"), columns=["sample_id", "status"])
        for sid, status in zip(table["sample_id"].to_pylist(), table["status"].to_pylist()):
            if status == "ok":
                pairs.append({"pair_id": sid, "sample_dir": os.path.join(os.path.abspath(folder), "samples", sid)})
    return pairs


def run_precache(options: PrecacheOptions) -> dict:
    from g2w.models.gamecleaner.presets import get_preset

    o = options
    if get_preset(o.preset).mllm is None and o.mllm_dir is None:
        raise ValueError(
            f"preset {o.preset} needs its Qwen2.5-VL folder (--mllm DIR); only tiny builds one from a config"
        )
    start = time.perf_counter()
    output = os.path.abspath(o.output)
    os.makedirs(os.path.join(output, "shards"), exist_ok=True)
    pairs = list_pairs(o.pairs)
    resources = init_ray(output=output)
    use_gpu = gpus_possible(resources) > 0
    log.info(
        f"precache: {len(pairs)} pairs, preset {o.preset}, condition as {cache_kind(o.checkpoint)}"
        f"{' on GPU' if use_gpu else ''} -> {output}"
    )
    step = PrecachePairs(o.preset, output, o.checkpoint, o.base_dir, o.mllm_dir, o.seed, use_gpu)
    index = os.path.join(output, "index.parquet")
    write_parquet(apply_steps(dataset_from_rows(pairs), [step]), index, INDEX_SCHEMA)
    table = pq.read_table(index, columns=["status", "reason", "skipped", "seconds"])
    made = [s for s, k in zip(table["seconds"].to_pylist(), table["skipped"].to_pylist()) if not k]
    summary = {
        "preset": o.preset,
        "checkpoint": o.checkpoint,
        "kind": cache_kind(o.checkpoint),
        "seed": o.seed,
        "pairs": table.num_rows,
        "ok": table["status"].to_pylist().count("ok"),
        "error": table["status"].to_pylist().count("error"),
        "errors_by_reason": dict(Counter(r for r in table["reason"].to_pylist() if r)),
        "skipped": sum(table["skipped"].to_pylist()),
        "pairs_per_worker_s": round(len(made) / sum(made), 3) if made and sum(made) else None,
        "seconds": round(time.perf_counter() - start, 2),
    }
    with open(os.path.join(output, "cache.json"), "w") as f:
        json.dump(summary, f, indent=2)
    log.info(f"precache: {summary['ok']}/{summary['pairs']} ok, errors {summary['errors_by_reason']} -> {index}")
    return summary
