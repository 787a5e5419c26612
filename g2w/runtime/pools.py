"""Which node pool a step runs in: decode and encode on CPU nodes, GPU work on GPU nodes.

The cluster configs label every node with `g2w.io/pool` (head, cpu or gpu). Ray's scheduler
would otherwise put a CPU task on any node with a free CPU, GPU nodes included, which keeps an
expensive node busy (and alive past its idle timeout) with decoding. So on a cluster whose nodes
carry the label, each task and actor asks for its pool through a label selector, which
autoscaler v2 also reads when it picks a node type to start. Where no node carries the label (a
laptop, the tests, a cluster configured otherwise) nothing is asked, so nothing waits for a
pool that does not exist.
"""

from __future__ import annotations

import ray

POOL_LABEL = "g2w.io/pool"


def cluster_has_pools() -> bool:
    """Whether any live node says its pool (the head always does on a g2w cluster)."""
    return any(POOL_LABEL in (n.get("Labels") or {}) for n in ray.nodes() if n.get("Alive"))


def pool_for(num_gpus: float) -> str:
    return "gpu" if num_gpus > 0 else "cpu"


def pool_selector(num_gpus: float) -> dict:
    """Ray options that keep a task or actor in its pool: a label selector on a labelled cluster,
    nothing elsewhere."""
    return {"label_selector": {POOL_LABEL: pool_for(num_gpus)}} if cluster_has_pools() else {}
