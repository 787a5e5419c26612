"""Which detector decides the cuts: the hand-set cues (`rules`), TransNetV2 on every frame
(`transnetv2`), the cues proposing candidate frames at a looser score that TransNetV2 then
confirms or drops (`cascade`), so the network runs only around the few frames worth a look, or a
logistic regression over the cues at those candidates (`learned`, cut_model).

Every mode gives per-frame scores on one scale (>= 1: a cut lands on that frame), so the
windows' `cut_count`, `cut_times` and `cut_score` mean the same whichever decided, and each
row names its `cut_detector`.
"""

from __future__ import annotations

import numpy as np

from g2w.curate import cut_model, transnet
from g2w.curate.cuts import CutThresholds, FrameSignals

MODES = ("rules", "cascade", "transnetv2", "learned")
CANDIDATE_SCORE = 0.5  # a cue score this high proposes a candidate to the network (a cut needs 1)
CONFIRM_FRAMES = 2  # the network's cut may land this many frames from the proposed one


def needs_frames(mode: str) -> bool:
    if mode not in MODES:
        raise ValueError(f"unknown cut detector {mode!r}: {', '.join(MODES)}")
    return mode in ("cascade", "transnetv2")


def frame_cut_scores(
    mode: str,
    signals: FrameSignals,
    frames: np.ndarray | None,
    thresholds: CutThresholds = CutThresholds(),
    threshold: float = transnet.THRESHOLD,
) -> np.ndarray:
    """Per-frame cut scores of one decoded sequence by `mode`; `frames` are its (n, 27, 48, 3)
    network inputs (unused by `rules` and `learned`)."""
    if mode == "learned":
        return cut_model.load().frame_scores(signals, thresholds)
    rules = signals.cut_scores(thresholds)
    if not needs_frames(mode):
        return rules
    if mode == "transnetv2":
        return transnet.frame_scores(transnet.probabilities(frames), threshold)
    proposed = np.flatnonzero(rules >= CANDIDATE_SCORE)
    near = np.zeros(len(rules), bool)
    for offset in range(-CONFIRM_FRAMES, CONFIRM_FRAMES + 1):
        near[np.clip(proposed + offset, 0, len(rules) - 1)] = True
    probs = transnet.span_probabilities(frames, np.maximum(proposed - 1, 0))  # the network marks frame i - 1
    return np.where(near, transnet.frame_scores(probs, threshold), 0.0)
