"""Fitting the decision model, and judging it against the hand-set rules out of sample.

The fit is scikit-learn's multinomial logistic regression on standardized cues, with classes
weighted by their inverse frequency (clean windows outnumber each defect). Evaluation holds one
game out at a time: the model is trained on every other group and judged on the held-out
game's clean windows (kept?) and defect windows (caught?), beside the rules' verdicts on the
same windows, so a game it has never seen is what it is measured on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from g2w.curate.config import QualityThresholds
from g2w.curate.decision.model import ACCEPT, CLASSES, CUES, DecisionModel, cue_matrix
from g2w.curate.quality import quality_failures


def _columns(rows: Sequence[dict]) -> dict[str, np.ndarray]:
    return {c: np.array([r[c] for r in rows], np.float64) for c in CUES}


def fit(rows: Sequence[dict], c: float = 1.0) -> DecisionModel:
    """The model trained on labelled rows (CUES columns and `label`)."""
    from sklearn.linear_model import LogisticRegression

    x = cue_matrix(_columns(rows))
    y = np.array([CLASSES.index(r["label"]) for r in rows])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    lr.fit((x - mean) / scale, y)
    coef = np.zeros((len(CLASSES), len(CUES)))
    intercept = np.full(len(CLASSES), -1e3)  # a class absent from training is never predicted
    coef[lr.classes_], intercept[lr.classes_] = lr.coef_, lr.intercept_
    return DecisionModel(CLASSES, CUES, mean, scale, coef, intercept)


def rule_verdicts(rows: Sequence[dict], t: QualityThresholds | None = None) -> np.ndarray:
    """The hand-set rules' verdict on the checks the model decides: the first failed, else accept."""
    cols = _columns(rows)
    n = len(rows)
    cols.update(border_fraction=np.zeros(n), ui_coverage=np.zeros(n))
    failures = dict(quality_failures(cols, t or QualityThresholds(), np.full(n, 10**6), np.full(n, 30.0)))
    verdict = np.full(n, ACCEPT, object)
    for name in reversed(CLASSES[1:]):
        verdict[np.asarray(failures[name], bool)] = name
    return verdict


def rates(labels: np.ndarray, verdicts: np.ndarray) -> dict[str, tuple[int, int, int]]:
    """Per true class: (windows, judged right: kept for clean, rejected for a defect, with
    exactly its reason)."""
    out = {}
    for name in CLASSES:
        mine = labels == name
        if mine.any():
            if name == ACCEPT:
                out[name] = (
                    int(mine.sum()),
                    int((verdicts[mine] == ACCEPT).sum()),
                    int((verdicts[mine] == ACCEPT).sum()),
                )
            else:
                out[name] = (
                    int(mine.sum()),
                    int((verdicts[mine] != ACCEPT).sum()),
                    int((verdicts[mine] == name).sum()),
                )
    return out


def leave_one_game_out(rows: Sequence[dict], games: Sequence[str]) -> dict[str, dict]:
    """{held-out game: {"learned": rates, "rules": rates}}, training on every other group."""
    report = {}
    for game in games:
        train = [r for r in rows if r["game"] != game]
        test = [r for r in rows if r["game"] == game]
        if not test:
            continue
        labels = np.array([r["label"] for r in test], object)
        learned, _ = fit(train).decide(_columns(test))
        report[game] = {"learned": rates(labels, learned), "rules": rates(labels, rule_verdicts(test))}
    return report
