"""Temporal near-duplicate removal (Appendix B.1).

Only temporally adjacent sampled windows of the same source are compared (window indices k and
k + 1, both sampled). Pairs whose cosine similarity exceeds the threshold are handled from the
most similar down; each removes its later window, and a window takes part in at most one removal
pair, so in a chain a-b-c only one of the two pairs can act. Ties are broken by source and window
index, so the result never depends on input order. Every removal records which window it
duplicates and how similar they were.
"""

from __future__ import annotations

import numpy as np


def temporal_dedup(
    source_ids: np.ndarray, window_index: np.ndarray, embeddings: np.ndarray, sampled: np.ndarray, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """(dup_of, similarity): dup_of[i] is the row that removed row i, or -1; similarity is the
    cosine of that pair (NaN when not removed)."""
    n = len(source_ids)
    dup_of = np.full(n, -1, np.int64)
    similarity = np.full(n, np.nan)
    rows = np.flatnonzero(np.asarray(sampled, bool))
    if len(rows) < 2:
        return dup_of, similarity
    order = rows[np.lexsort((window_index[rows], source_ids[rows]))]
    a, b = order[:-1], order[1:]
    adjacent = (source_ids[a] == source_ids[b]) & (window_index[b] - window_index[a] == 1)
    a, b = a[adjacent], b[adjacent]
    sims = np.einsum("ij,ij->i", embeddings[a].astype(np.float32), embeddings[b].astype(np.float32))
    keep = sims > threshold
    a, b, sims = a[keep], b[keep], sims[keep]
    used = np.zeros(n, bool)
    for i in np.lexsort((window_index[a], source_ids[a], -sims)):
        if used[a[i]] or used[b[i]]:
            continue
        used[a[i]] = used[b[i]] = True
        dup_of[b[i]] = a[i]
        similarity[b[i]] = sims[i]
    return dup_of, similarity
