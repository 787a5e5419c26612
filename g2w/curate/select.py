"""From measured, embedded windows to final verdicts: checks, clusters, sampling, dedup.

Order (Appendix B.1 with the checks moved ahead of sampling): every window with an embedding is
clustered, so clusters describe the whole raw pool; windows that fail a check (a scene cut, a
quality limit, the UI screen) are then left out of the cluster-balanced sampling, so the
candidate cap counts usable windows only; temporal dedup runs on the sampled candidates; what
remains is kept. Every row keeps its measurements and gets `checks_failed`, `cluster`,
`sampled`, `dup_of` and `dup_similarity`, so each verdict can be audited.

Columnar throughout: the window table's columns become numpy arrays and the embeddings one
(n, d) matrix, and verdicts go back as Arrow columns. A million windows never become Python
rows, which would cost tens of GB and minutes on the driver.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pyarrow as pa

from g2w.curate.balance import round_robin_sample
from g2w.curate.config import CurateConfig
from g2w.curate.decision.checks import learned_failures
from g2w.curate.dedup import temporal_dedup
from g2w.curate.kmeans import num_clusters, spherical_kmeans
from g2w.curate.quality import quality_failures
from g2w.curate.rows import MEASURES, SELECTION_FIELDS

# What selection reads from the window table besides the embedding.
SELECT_COLUMNS = ("clip_id", "source_id", "window_index", "status", "width", "height", "fps", "cut_count", *MEASURES)

Kmeans = Callable[[np.ndarray], np.ndarray]  # (n, d) unit vectors -> (n,) cluster labels


def local_kmeans(cfg: CurateConfig, device: str = "cpu") -> Kmeans:
    """Cluster labels from spherical k-means in this process."""
    return lambda x: spherical_kmeans(x, cfg.k_max, cfg.kmeans_iters, cfg.kmeans_init_cap, cfg.seed, device)[1]


def check_matrix(cols: Mapping[str, np.ndarray], cfg: CurateConfig) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(check names, failed (n, checks) bool, the cue that drove each learned verdict or None):
    `scene_cut` first, then the quality checks."""
    quality = quality_failures(cols, cfg.quality, np.minimum(cols["width"], cols["height"]), cols["fps"])
    n = len(cols["cut_count"])
    cue = np.full(n, None, object)
    if cfg.decisions == "learned" and n:
        quality, cue = learned_failures(quality, cols)
    names = ["scene_cut"] + [name for name, _ in quality]
    failed = np.column_stack([np.asarray(cols["cut_count"]) > 0] + [np.broadcast_to(f, n) for _, f in quality])
    return names, failed.reshape(n, len(names)), cue


def select(
    cols: Mapping[str, np.ndarray], embeddings: np.ndarray, cfg: CurateConfig, kmeans: Kmeans | None = None
) -> dict:
    """Verdicts for analysed windows: `cols` are equal-length arrays (SELECT_COLUMNS), `embeddings`
    their (n, d) unit vectors. Returns numpy arrays `status`, `reason`, `failed` (n, checks) with
    `check_names`, `decision_cue`, `cluster`, `sampled`, `dup_of` (row index or -1), `dup_similarity`, and `k`."""
    n = len(embeddings)
    names, failed, cue = check_matrix(cols, cfg)
    failing = failed.any(axis=1)
    clusters = np.asarray((kmeans or local_kmeans(cfg))(embeddings)) if n else np.zeros(0, np.int64)
    sampled = round_robin_sample(clusters, ~failing, cfg.max_candidates, cfg.seed)
    dup_of, similarity = temporal_dedup(
        np.asarray(cols["source_id"]), np.asarray(cols["window_index"]), embeddings, sampled, cfg.active_dedup_threshold
    )
    reason = np.where(
        failing,
        np.array(names, object)[failed.argmax(axis=1)],
        np.where(~sampled, "not_sampled", np.where(dup_of >= 0, "near_duplicate", "")),
    ).astype(object)
    status = np.where(reason == "", "kept", "rejected").astype(object)
    return {
        "status": status,
        "reason": reason,
        "failed": failed,
        "check_names": names,
        "decision_cue": cue,
        "cluster": clusters.astype(np.int32),
        "sampled": sampled,
        "dup_of": dup_of,
        "dup_similarity": similarity,
        "k": num_clusters(n, cfg.k_max),
    }


def embedding_matrix(table: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """The embedding column as ((n, d) float16, present), straight from Arrow's buffers."""
    column = table.column("embedding").combine_chunks()
    present = column.is_valid().to_numpy(zero_copy_only=False)
    values = column.flatten().to_numpy(zero_copy_only=False)
    dim = len(values) // max(int(present.sum()), 1)
    if present.all():  # the usual case: a read-only view of Arrow's buffer, no copy
        return values.reshape(len(column), dim), present
    matrix = np.zeros((len(column), dim), np.float16)
    if dim:
        matrix[present] = values.reshape(-1, dim)
    return matrix, present


def _checks_column(names: list[str], failed: np.ndarray) -> pa.ListArray:
    offsets = np.r_[0, np.cumsum(failed.sum(axis=1))].astype(np.int32)
    return pa.ListArray.from_arrays(
        pa.array(offsets), pa.array(np.array(names, object)[np.nonzero(failed)[1]], pa.string())
    )


def select_table(windows: pa.Table, cfg: CurateConfig, kmeans: Kmeans | None = None) -> tuple[pa.Table, int]:
    """The window table (WINDOW_SCHEMA) with verdicts filled in and the selection columns added
    (`clip_path` null until standardization); windows that failed analysis keep their error.
    Returns (table, k)."""
    status = windows.column("status").to_numpy(zero_copy_only=False)
    ok = np.flatnonzero(status == "ok")
    cols = {c: windows.column(c).to_numpy(zero_copy_only=False)[ok] for c in SELECT_COLUMNS}
    embeddings, _ = embedding_matrix(windows.select(["embedding"]))
    if len(ok) < len(embeddings):  # copy only when some rows have none
        embeddings = embeddings[ok]
    v = select(cols, embeddings, cfg, kmeans)
    del embeddings
    n, ok_mask = windows.num_rows, status == "ok"
    status = status.astype(object)
    status[ok] = v["status"]
    reason = windows.column("reason").to_numpy(zero_copy_only=False).astype(object)
    reason[ok] = v["reason"]
    failed = np.zeros((n, len(v["check_names"])), bool)
    failed[ok] = v["failed"]
    dup_of = np.full(n, None, object)
    dups = v["dup_of"] >= 0
    dup_of[ok[dups]] = cols["clip_id"][v["dup_of"][dups]]
    similarity = np.full(n, np.nan)
    similarity[ok] = v["dup_similarity"]
    cluster = np.zeros(n, np.int32)
    cluster[ok] = v["cluster"]
    sampled = np.zeros(n, bool)
    sampled[ok] = v["sampled"]
    cue = np.full(n, None, object)
    cue[ok] = v["decision_cue"]
    added = {
        "checks_failed": _checks_column(v["check_names"], failed),
        "cluster": pa.array(cluster, pa.int32(), mask=~ok_mask),
        "sampled": pa.array(sampled, pa.bool_(), mask=~ok_mask),
        "dup_of": pa.array(dup_of, pa.string()),
        "dup_similarity": pa.array(similarity, pa.float64(), mask=np.isnan(similarity)),
        "clip_path": pa.nulls(n, pa.string()),
        "decision_cue": pa.array(cue, pa.string()),
    }
    table = windows.set_column(windows.schema.get_field_index("status"), "status", pa.array(status, pa.string()))
    table = table.set_column(table.schema.get_field_index("reason"), "reason", pa.array(reason, pa.string()))
    for name, kind in SELECTION_FIELDS:
        table = table.append_column(pa.field(name, kind), added[name])
    return table, v["k"]
