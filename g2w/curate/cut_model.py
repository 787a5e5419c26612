"""The learned cut decision (`--cuts learned`): logistic regression over the cut cues.

The hand-set cues already measure, at every step, what a cut would change: the picture after
motion compensation, the histogram, how much the step stands out of its neighbours, the blocks
no shift explains, whether the view comes back, whether the step is into or out of a flash. The
rules combine them with thresholds and vetoes, one added per kind of false cut; on real play a
damage palette, a muzzle flash or a fast turn still reads as a cut while a respawn can be
vetoed. This model weighs the same cues from labelled steps instead: procedural walks with known
cuts and jumps, and real captures whose every proposed step was labelled by hand.

Only candidates are judged (steps scoring at least CANDIDATE_SCORE by the rules, with or without
their vetoes, where the local cue is measured), so the model never cuts where the cues see
nothing. It ships as JSON coefficients: scoring needs numpy only and loads nothing executable.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from g2w.curate.cuts import CutThresholds, FrameSignals, cut_scores, inside_run, neighbour_mean, side_means

CANDIDATE_SCORE = 0.5  # rules score from which a step is judged, and its local cue measured
CUES = (
    "log_difference",
    "histogram",
    "log_spike",
    "log_sided",
    "unexplained",
    "coherent",
    "standout",
    "back",
    "flash",
    "inside_run",
    "raw_score",
    "rules_score",
)
WEIGHTS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "weights", "curate_cuts.json")


def cue_matrix(signals: FrameSignals, thresholds: CutThresholds = CutThresholds()) -> tuple[np.ndarray, np.ndarray]:
    """((n, len(CUES)) cues of every step, the candidate steps' indices). Unmeasured local cues
    read -1 and an unmeasured return 5 (no return seen); scores are capped at 5."""
    d, h = np.array(signals.difference), np.array(signals.histogram)
    flat = np.array(signals.flat, bool)
    solid = ~flat
    spike = d / np.maximum(neighbour_mean(d, thresholds.neighbours, solid), 0.01)
    sided = d / np.maximum(np.maximum(*side_means(d, thresholds.neighbours, solid)), 0.01)
    unexplained, coherent, standout = signals.local_cue_arrays()
    back = signals.return_array()
    run = inside_run(d, solid, thresholds.veto_run) if thresholds.veto_run > 0 else np.zeros(len(d), bool)
    rules = signals.cut_scores(thresholds)
    raw = cut_scores(d, h, flat, thresholds)  # without the local cue and the vetoes
    x = np.column_stack(
        [
            np.log(d + 1e-3),
            h,
            np.log(spike + 1e-3),
            np.log(sided + 1e-3),
            np.nan_to_num(unexplained, nan=-1.0),
            np.nan_to_num(coherent, nan=-1.0),
            np.nan_to_num(standout, nan=-1.0),
            np.nan_to_num(np.minimum(back, 5.0), nan=5.0),
            np.array(signals.flash, bool),
            run,
            np.minimum(raw, 5.0),
            np.minimum(rules, 5.0),
        ]
    ).reshape(len(d), len(CUES))
    candidates = np.flatnonzero(np.maximum(rules, raw) >= CANDIDATE_SCORE)
    return x, candidates


@dataclass(frozen=True)
class CutModel:
    cues: tuple[str, ...]
    mean: np.ndarray  # (cues,) standardization
    scale: np.ndarray
    coef: np.ndarray  # (cues,)
    intercept: float
    threshold: float  # the cut probability from which a candidate is a cut

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        z = (np.asarray(x, np.float64) - self.mean) / self.scale
        return 1.0 / (1.0 + np.exp(-(z @ self.coef + self.intercept)))

    def frame_scores(self, signals: FrameSignals, thresholds: CutThresholds = CutThresholds()) -> np.ndarray:
        """Per-frame scores on the detectors' scale (>= 1: a cut): the candidate's probability
        over the threshold, 0 for a step that is no candidate."""
        x, candidates = cue_matrix(signals, thresholds)
        scores = np.zeros(len(x))
        scores[candidates] = self.probabilities(x[candidates]) / self.threshold
        return scores

    def to_json(self, card: dict | None = None) -> dict:
        return {
            "kind": "logistic_regression",
            "cues": list(self.cues),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "coef": self.coef.tolist(),
            "intercept": self.intercept,
            "threshold": self.threshold,
            "candidate_score": CANDIDATE_SCORE,
            **(card or {}),
        }

    @classmethod
    def from_json(cls, data: dict) -> CutModel:
        if tuple(data["cues"]) != CUES or data.get("candidate_score") != CANDIDATE_SCORE:
            raise ValueError("cut model weights were trained on other cues than this code measures")
        return cls(
            cues=CUES,
            mean=np.asarray(data["mean"], np.float64),
            scale=np.asarray(data["scale"], np.float64),
            coef=np.asarray(data["coef"], np.float64),
            intercept=float(data["intercept"]),
            threshold=float(data["threshold"]),
        )


@lru_cache(maxsize=4)
def load(path: str = WEIGHTS) -> CutModel:
    with open(path) as f:
        return CutModel.from_json(json.load(f))
