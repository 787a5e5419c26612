"""From measured, embedded windows to final verdicts: checks, clusters, sampling, dedup.

Order (Appendix B.1 with the checks moved ahead of sampling): every window with an embedding is
clustered, so clusters describe the whole raw pool; windows that fail a check (a scene cut, a
quality limit, the UI screen) are then left out of the cluster-balanced sampling, so the
candidate cap counts usable windows only; temporal dedup runs on the sampled candidates; what
remains is kept. Every row keeps its measurements and gets `checks_failed`, `cluster`,
`sampled`, `dup_of` and `dup_similarity`, so each verdict can be audited.
"""

from __future__ import annotations

import numpy as np

from g2w.curate.balance import round_robin_sample
from g2w.curate.config import CurateConfig
from g2w.curate.dedup import temporal_dedup
from g2w.curate.kmeans import num_clusters, spherical_kmeans
from g2w.curate.quality import quality_reasons


def failed_checks(rows: list[dict], cfg: CurateConfig) -> list[list[str]]:
    """Per analysed row, every check it fails: `scene_cut` first, then the quality checks."""
    out = []
    for r in rows:
        cut = ["scene_cut"] if r["cut_count"] > 0 else []
        out.append(cut + quality_reasons(r, cfg.quality, min(r["width"], r["height"]), r["fps"]))
    return out


def select(rows: list[dict], embeddings: np.ndarray, cfg: CurateConfig, device: str = "cpu") -> dict:
    """Verdicts for analysed rows (status "ok"; embeddings (n, d) in the same order).

    Returns per-row arrays `status`, `reason`, `checks_failed`, `cluster`, `sampled`, `dup_of`
    (clip_id or ""), `dup_similarity`, and the cluster count `k`.
    """
    n = len(rows)
    checks = failed_checks(rows, cfg)
    eligible = np.array([not c for c in checks], bool)
    _, clusters = spherical_kmeans(embeddings, cfg.k_max, cfg.kmeans_iters, cfg.kmeans_init_cap, cfg.seed, device)
    sampled = round_robin_sample(clusters, eligible, cfg.max_candidates, cfg.seed)
    sources = np.array([r["source_id"] for r in rows])
    windows = np.array([r["window_index"] for r in rows])
    dup_of, similarity = temporal_dedup(sources, windows, embeddings, sampled, cfg.active_dedup_threshold)
    status, reason = [], []
    for i in range(n):
        if checks[i]:
            status.append("rejected"), reason.append(checks[i][0])
        elif not sampled[i]:
            status.append("rejected"), reason.append("not_sampled")
        elif dup_of[i] >= 0:
            status.append("rejected"), reason.append("near_duplicate")
        else:
            status.append("kept"), reason.append("")
    return {
        "status": status, "reason": reason, "checks_failed": checks,
        "cluster": clusters.astype(np.int32), "sampled": sampled,
        "dup_of": [rows[j]["clip_id"] if j >= 0 else "" for j in dup_of],
        "dup_similarity": similarity, "k": num_clusters(n, cfg.k_max),
    }
