"""Which examples each worker trains on at each step, and the learning rate.

The order is a pure function of (seed, step): epochs are seeded permutations of the training
split, a global batch is the next `global_batch` positions of that stream, cut into
micro-batches dealt round-robin to the workers. So a resumed run sees exactly the data an
uninterrupted one would, and 2 workers x 1 micro-batch see the same micro-batches as
1 worker x 2 accumulation steps. Each micro-batch also gets its own seed for the loss's noise.
The learning rate is likewise a pure function of the step, so a resumed run continues its curve.
"""

from __future__ import annotations

import math

import numpy as np

_MIX = 1_000_003


def epoch_order(seed: int, epoch: int, n: int) -> np.ndarray:
    return np.random.default_rng([seed, epoch]).permutation(n)


def global_batch(seed: int, step: int, batch: int, n: int) -> np.ndarray:
    """Example indices of optimizer step `step` (0-based), `batch` of them."""
    positions = np.arange(step * batch, (step + 1) * batch)
    out = np.empty(batch, np.int64)
    for epoch in np.unique(positions // n):
        sel = positions // n == epoch
        out[sel] = epoch_order(seed, int(epoch), n)[positions[sel] % n]
    return out


def micro_batches(
    seed: int, step: int, batch: int, micro: int, n: int, rank: int, world: int
) -> list[tuple[np.ndarray, int]]:
    """This worker's micro-batches of step `step`: (example indices, noise seed) pairs."""
    indices = global_batch(seed, step, batch, n)
    count = batch // micro
    return [(indices[k * micro : (k + 1) * micro], micro_seed(seed, step, k)) for k in range(rank, count, world)]


def micro_seed(seed: int, step: int, k: int) -> int:
    return int(np.random.default_rng([seed, step, k, _MIX]).integers(2**62))


LR_SCHEDULES = ("constant", "cosine")


def learning_rate(
    base: float, step: int, warmup: int = 0, total: int = 0, shape: str = "constant", floor: float = 0.0
) -> float:
    """The rate of optimizer step `step` (0-based): linear warm-up over `warmup` steps, then
    `constant`, or `cosine` from `base` down to `floor * base` at step `total` (the run's length)."""
    if step < warmup:
        return base * (step + 1) / warmup
    if shape == "constant":
        return base
    if shape != "cosine":
        raise ValueError(f"unknown lr schedule {shape!r}; one of {LR_SCHEDULES}")
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return base * (floor + (1.0 - floor) * 0.5 * (1.0 + math.cos(math.pi * progress)))
