"""Cluster-balanced round-robin sampling (Appendix B.1), up to the candidate cap.

Rounds visit the clusters in a seeded random order and take one candidate from each cluster
that still has one; a cluster that runs out simply drops out of later rounds. Inside a cluster
candidates are taken in a seeded random order: ordering by a quality score instead would favour
whatever the score likes (bright, high-contrast scenes) within every cluster, while every
candidate here has already passed the quality checks. Vectorized: a candidate's round is its
rank inside its cluster, so the whole selection is one sort, fine for millions of rows.
"""

from __future__ import annotations

import numpy as np


def round_robin_sample(clusters: np.ndarray, eligible: np.ndarray, cap: int, seed: int) -> np.ndarray:
    """Boolean mask of the sampled rows among the eligible ones."""
    clusters = np.asarray(clusters)
    eligible = np.asarray(eligible, bool)
    idx = np.flatnonzero(eligible)
    chosen = np.zeros(len(clusters), bool)
    if len(idx) == 0 or cap <= 0:
        return chosen
    rng = np.random.default_rng(seed)
    idx = idx[rng.permutation(len(idx))]  # the seeded order inside each cluster
    labels = clusters[idx]
    cluster_ids = np.unique(labels)
    visit = dict(zip(cluster_ids, rng.permutation(len(cluster_ids))))
    position = np.array([visit[c] for c in labels])
    order = np.lexsort((position, labels))  # group by cluster, keeping the shuffled order
    grouped = labels[order]
    starts = np.r_[0, np.flatnonzero(grouped[1:] != grouped[:-1]) + 1]
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rounds = np.empty(len(order), np.int64)
    rounds[order] = rank
    pick = np.lexsort((position, rounds))[:cap]  # round by round, clusters in visiting order
    chosen[idx[pick]] = True
    return chosen
