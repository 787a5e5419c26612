"""The shipped accept/reject model: multinomial logistic regression over the window's cues.

One model replaces the hand-set limits on darkness, freezing, blur and shake, so their
interplay (a fast turn moves the picture a lot and blurs it a little; a dark room is flat) is
learned from labelled windows instead of being stacked rule by rule. It ships as JSON
coefficients, so scoring needs numpy only and loads nothing executable. Every verdict names
the cue with the largest term in the winning class's log-odds over the runner-up, so a
rejection reads "shaky, driven by shake" and can be audited.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

ACCEPT = "accept"
# The manifest's reasons for the checks the model decides (the first is the neutral class).
CLASSES = (ACCEPT, "too_dark", "frozen", "blurry", "shaky")
# Measures it reads, in order; each one is a column of the window row.
CUES = ("luma_mean", "dark_fraction", "bright_fraction", "sharpness", "motion", "frozen_fraction", "shake")
LOG_CUES = ("sharpness", "motion")  # spread over orders of magnitude: compared on a log scale

WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "weights", "curate_decisions.json")


def cue_matrix(cols: Mapping[str, np.ndarray]) -> np.ndarray:
    """(n, len(CUES)) float64 features from equal-length measure columns (or scalars)."""
    out = np.column_stack([np.atleast_1d(np.asarray(cols[c], np.float64)) for c in CUES])
    for c in LOG_CUES:
        i = CUES.index(c)
        out[:, i] = np.log1p(np.maximum(out[:, i], 0.0))
    return out


@dataclass(frozen=True)
class DecisionModel:
    classes: tuple[str, ...]
    cues: tuple[str, ...]
    mean: np.ndarray  # (cues,) standardization
    scale: np.ndarray
    coef: np.ndarray  # (classes, cues)
    intercept: np.ndarray  # (classes,)

    def logits(self, cols: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """((n, classes) logits, (n, cues) standardized cues)."""
        z = (cue_matrix(cols) - self.mean) / self.scale
        return z @ self.coef.T + self.intercept, z

    def probabilities(self, cols: Mapping[str, np.ndarray]) -> np.ndarray:
        logits, _ = self.logits(cols)
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def decide(self, cols: Mapping[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """(class name, driving cue) per window, as object arrays."""
        logits, z = self.logits(cols)
        order = np.argsort(-logits, axis=1)
        best, second = order[:, 0], order[:, 1]
        terms = (self.coef[best] - self.coef[second]) * z  # each cue's share of the winning margin
        cue = np.array(self.cues, object)[terms.argmax(axis=1)]
        return np.array(self.classes, object)[best], cue

    def to_json(self, extra: dict | None = None) -> dict:
        return {
            "kind": "multinomial_logistic_regression",
            "classes": list(self.classes),
            "cues": list(self.cues),
            "log_cues": [c for c in LOG_CUES if c in self.cues],
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept.tolist(),
            **(extra or {}),
        }

    @classmethod
    def from_json(cls, data: dict) -> DecisionModel:
        if tuple(data["cues"]) != CUES or tuple(data.get("log_cues", ())) != LOG_CUES:
            raise ValueError(f"decision model reads cues {data['cues']}, this code computes {list(CUES)}")
        return cls(
            tuple(data["classes"]),
            tuple(data["cues"]),
            np.asarray(data["mean"], np.float64),
            np.asarray(data["scale"], np.float64),
            np.asarray(data["coef"], np.float64),
            np.asarray(data["intercept"], np.float64),
        )


def load_model(path: str = WEIGHTS) -> DecisionModel:
    with open(path) as f:
        return DecisionModel.from_json(json.load(f))
