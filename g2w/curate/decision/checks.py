"""The learned model in place of the rules it replaces, for selection's check matrix."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from g2w.curate.decision.model import CLASSES, DecisionModel, load_model


@lru_cache(maxsize=1)
def shipped_model() -> DecisionModel:
    return load_model()


def learned_failures(
    quality: list[tuple[str, np.ndarray]], cols: Mapping[str, np.ndarray]
) -> tuple[list[tuple[str, np.ndarray]], np.ndarray]:
    """The quality checks with the model's verdict in place of each check it decides (a window
    fails the one check it is classed as), and the cue that drove each window's verdict."""
    verdict, cue = shipped_model().decide(cols)
    return [(name, verdict == name) if name in CLASSES else (name, failed) for name, failed in quality], cue
