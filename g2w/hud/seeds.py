"""Independent deterministic random streams for synthesis.

Composition (style, spawns, jitter, popup count, categories, anchors), asset selection, timing
and animation each draw from their own stream (paper B.3), and inside a stream every widget or
event draws from its own keyed sub-stream. So changing one stream's seed, or adding an event,
never shifts the numbers another stream or another item draws.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

STREAMS = ("composition", "assets", "timing", "animation")


def _key(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")


@dataclass(frozen=True)
class SeedStreams:
    """The sample's seed, optionally with some streams re-seeded on their own."""

    seed: int
    overrides: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        unknown = set(self.overrides) - set(STREAMS)
        if unknown:
            raise ValueError(f"unknown seed streams {sorted(unknown)}; streams are {STREAMS}")

    def seed_of(self, stream: str) -> int:
        if stream not in STREAMS:
            raise ValueError(f"unknown seed stream {stream!r}")
        return int(self.overrides.get(stream, self.seed))

    def rng(self, stream: str, *keys) -> np.random.Generator:
        """A generator for one purpose inside a stream, e.g. rng("timing", "event", 2)."""
        path = "/".join([stream, *(str(k) for k in keys)])
        return np.random.default_rng([self.seed_of(stream) & 0xFFFFFFFFFFFFFFFF, _key(path)])

    def to_dict(self) -> dict:
        return {"seed": self.seed, "streams": {s: self.seed_of(s) for s in STREAMS}}

    @classmethod
    def from_dict(cls, d: dict) -> SeedStreams:
        seed = int(d["seed"])
        return cls(seed, {k: int(v) for k, v in d["streams"].items() if int(v) != seed})


def sample_seed(seed: int, index: int) -> int:
    """The seed of the index-th sample of a run with run seed `seed` (31-bit, printable)."""
    return _key(f"sample/{seed}/{index}") & 0x7FFFFFFF
