"""The embedding stage: CLIP, or the appearance descriptor, on each window's centre crop, as a
batched actor pool.

With a CLIP spec the model loads once per actor in `setup()`, on the device that actor finds when
it starts; on a GPU node each actor holds one GPU. Without one (no CLIP weights) the deterministic
appearance descriptor is used. The pool is sized for what the cluster can grow to (its declared
node types, G2W_MAX_GPUS, or `max_workers` from the job's configuration), not for the GPUs that
happen to be up at the start, so GPU workers that join later get actors too. Rows that
could not be analysed (status "error") pass through without an embedding. The crop column is
dropped here: from this point on a row is only numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from g2w.curate.appearance import AppearanceEmbedder
from g2w.models.clip_embedder import ClipEmbedder, ClipSpec
from g2w.step import Batch, Resources, Step


@dataclass
class EmbedCentralFrames(Step):
    spec: ClipSpec | None  # None: the appearance descriptor
    batch_size: int = 32
    max_workers: int = 0  # most actors; 0 = as many as the cluster can hold (g2w.runtime.capacity)

    def resources(self) -> Resources:
        gpu = self.spec is not None and self.spec.device == "cuda"
        return Resources(
            num_cpus=1, num_gpus=1.0 if gpu else 0.0, batch_size=self.batch_size, max_workers=self.max_workers or None
        )

    def setup(self) -> None:
        self.embedder = ClipEmbedder(self.spec) if self.spec is not None else AppearanceEmbedder()

    def __call__(self, batch: Batch) -> Batch:
        ok = batch["status"] == "ok"
        embedding = np.zeros((len(ok), self.embedder.dim), np.float16)
        if ok.any():
            embedding[ok] = self.embedder.embed(batch["crop"][ok]).astype(np.float16)
        out = {k: v for k, v in batch.items() if k != "crop"}
        out["embedding"] = embedding
        out["has_embedding"] = ok
        return out
