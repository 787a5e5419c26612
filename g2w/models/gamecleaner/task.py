"""GameCleaner as a `g2w.train` task: precached latents in, flow-matching loss out.

The cache is a local folder or a URI (`s3://...`): its index, `cache.json` and shards are read
through `g2w.io.storage`, by each worker, with shard paths relative to the cache root.
The cache says whether it holds connector outputs (`context`: the run starts from a checkpoint,
connector frozen) or MLLM states (`states`: from scratch, the connector trains); the task refuses
a cache of the wrong kind. The reference is dropped with probability `reference_drop` per
micro-batch (one draw from the harness's generator for it): a dropped reference is no reference
tokens, the very input of inference without a reference (see dit.py), and one micro-batch is one
sequence length. A cache with error rows is refused
unless `skip_errors`, which reports how many rows it skipped. The last `validation_pairs` ok
pairs of the index are held out of training for the report's before/after frames (a cache with
one pair validates on it, and the report says it is a training pair).
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import torch
from safetensors.torch import load

from g2w.io import storage
from g2w.models.gamecleaner import flow
from g2w.train_task import TrainTask


def _index(cache: str, columns: list[str]):
    with storage.open_binary(storage.join(cache, "index.parquet")) as f:
        return pq.read_table(f, columns=columns)


def cache_counts(cache: str) -> tuple[int, int]:
    """(ok rows, error rows) of a cache's index, counted in Arrow (no Python rows)."""
    status = _index(cache, ["status"])["status"]
    ok = pc.sum(pc.equal(status, "ok")).as_py() or 0
    return ok, len(status) - ok


def ok_paths(cache: str) -> list[str]:
    """Shard paths of the ok rows, under the cache root (a local folder or a URI), read on the
    training worker, not the driver."""
    table = _index(cache, ["status", "path"])
    return [storage.join(cache, p) for p in table.filter(pc.equal(table["status"], "ok"))["path"].to_pylist()]


@dataclass
class GameCleanerTask(TrainTask):
    cache: str
    checkpoint: str | None = None  # start from these g2w weights (connector frozen)
    base_dir: str | None = None  # Wan folder (diffusers layout); None: random init (tiny)
    preset: str = "tiny"
    seed: int = 0
    skip_errors: bool = False
    gradient_checkpointing: bool = False
    validation_pairs: int = 1
    precision: str = "bf16"  # the harness's autocast (FitConfig.precision): the base DiT's weights follow it
    attention: str | None = None  # a diffusers attention backend for the DiT (None: diffusers' default)
    compile: bool = False  # regional torch.compile of the DiT blocks, before the harness wraps the model
    name = "gamecleaner"
    unused_parameters = (
        False  # without a reference the embedder still runs on no patches: every step reaches every tensor
    )

    def __post_init__(self):
        self.cache = storage.absolute(self.cache)  # workers may run elsewhere
        if self.attention is not None:  # an unknown name fails on the driver; the device's own check on the worker
            from g2w.models.gamecleaner.speed import backend_names

            if self.attention not in backend_names():
                raise ValueError(f"attention {self.attention!r}: one of {', '.join(backend_names())}")
        self.kind = json.loads(storage.read_bytes(storage.join(self.cache, "cache.json")))["kind"]
        expected = "context" if self.checkpoint else "states"
        if self.kind != expected:
            raise ValueError(
                f"{self.cache} holds {self.kind}, but a run {'from a checkpoint' if self.checkpoint else 'from scratch'}"
                f" needs {expected}: precache again {'with' if self.checkpoint else 'without'} --checkpoint"
            )
        ok, self.skipped = cache_counts(self.cache)
        if self.skipped and not self.skip_errors:
            raise ValueError(
                f"{self.cache}: {self.skipped} of {ok + self.skipped} pairs are error rows; "
                "fix them or pass --skip-errors"
            )
        if not ok:
            raise ValueError(f"{self.cache}: no usable pairs")
        self.held_out = min(self.validation_pairs, ok - 1)
        self.examples = ok - self.held_out

    @functools.cached_property
    def paths(self) -> list[str]:
        return ok_paths(self.cache)

    @functools.cached_property
    def model_config(self):
        from g2w.models.gamecleaner.model import checkpoint_config
        from g2w.models.gamecleaner.presets import get_preset

        return checkpoint_config(self.checkpoint) if self.checkpoint else get_preset(self.preset)

    def build_model(self, device):
        """The model on `device`, its speed options applied: the harness wraps it (DDP, FSDP) after."""
        from g2w.models.gamecleaner.model import base_dtype, load_gamecleaner
        from g2w.models.gamecleaner.speed import apply_speed

        dtype = base_dtype(device, self.precision)
        model = load_gamecleaner(self.checkpoint, self.model_config, self.base_dir, self.seed, dtype)
        if self.gradient_checkpointing:
            model.dit.transformer.enable_gradient_checkpointing()
        model = model.to(device)
        apply_speed(model.dit.transformer, self.attention, self.compile, torch.device(device).type)
        return model

    def trainable_parameters(self, model):
        return model.trainable()

    def shard_units(self, model):
        return list(model.dit.transformer.blocks)

    def num_examples(self):
        return self.examples

    def load_batch(self, indices, device):
        """fp32 tensors on `device` (shards are bf16; autocast picks each op's dtype from there)."""
        shards = [load(storage.read_bytes(self.paths[i])) for i in indices]
        return {k: torch.stack([s[k] for s in shards]).to(device, torch.float32) for k in shards[0]}

    def training_reference(self, batch, generator) -> torch.Tensor | None:
        """The micro-batch's reference latents, or None (dropped) with probability `reference_drop`."""
        draw = torch.rand((), generator=generator, device=batch["source"].device)
        return None if float(draw) < self.model_config.reference_drop else batch["reference"]

    def loss(self, model, batch, generator):
        reference = self.training_reference(batch, generator)
        cond = {self.kind: batch[self.kind]}

        def predict(latents, t, _context, source, ref):
            return model(latents, t, source, ref, **cond)

        return flow.flow_matching_loss(predict, batch["target"], None, batch["source"], reference, generator)

    def save_weights(self, model, path):
        model.save(path)

    def load_weights(self, model, path):
        model.load(path)

    def flops_per_sample(self):
        from g2w.models.gamecleaner.flops import training_flops

        # the expected count: a dropped reference (probability reference_drop) is a shorter sequence
        drop, train_connector = self.model_config.reference_drop, self.kind == "states"
        return (1 - drop) * training_flops(self.model_config, True, train_connector) + drop * training_flops(
            self.model_config, False, train_connector
        )

    def validate(self, model, out_dir, device):
        """Before/after middle frames of each held-out pair: source, target, and a short sampling
        (the harness calls it under the training step's autocast)."""
        from g2w.io.html_page import save_png
        from g2w.models.gamecleaner.encoders import Encoders

        os.makedirs(out_dir, exist_ok=True)
        enc = Encoders(self.model_config, self.base_dir, device=device, seed=self.seed, with_mllm=False)
        indices = range(self.examples, self.examples + self.held_out) if self.held_out else [0]
        model.eval()
        rows = []
        for i in indices:
            batch = self.load_batch([i], device)
            cond = {self.kind: batch[self.kind]}
            with torch.no_grad():
                out = flow.euler_sample(
                    lambda z, t, _c, s, r: model(z, t, s, r, **cond),  # noqa: B023  (called within this step)
                    None,
                    batch["source"],
                    batch["reference"],
                    steps=8,
                    generator=torch.Generator(device).manual_seed(0),
                )
            pair = os.path.basename(self.paths[i]).removesuffix(".safetensors")
            row = {"label": pair if self.held_out else f"{pair} (a training pair: the cache has no other)"}
            for label, latent in (("source", batch["source"]), ("target", batch["target"]), ("output", out)):
                frames = enc.decode(latent)
                name = f"{pair}_{label}.png"
                save_png(os.path.join(out_dir, name), np.ascontiguousarray(frames[len(frames) // 2]))
                row[f"image_{label}"] = f"validation/{name}"
            rows.append(row)
        model.train()
        return rows
