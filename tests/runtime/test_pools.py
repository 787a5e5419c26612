"""Steps ask for their node pool only on a cluster whose nodes say their pool."""

from g2w.runtime import pools


def test_no_selector_where_no_node_is_labelled(monkeypatch):
    monkeypatch.setattr(pools.ray, "nodes", lambda: [{"Alive": True, "Labels": {"ray.io/node-id": "a"}}])
    assert pools.pool_selector(0) == {} and pools.pool_selector(1) == {}


def test_cpu_and_gpu_work_go_to_their_pools(monkeypatch):
    nodes = [{"Alive": True, "Labels": {pools.POOL_LABEL: "head"}}, {"Alive": False, "Labels": {}}]
    monkeypatch.setattr(pools.ray, "nodes", lambda: nodes)
    assert pools.pool_selector(0) == {"label_selector": {pools.POOL_LABEL: "cpu"}}
    assert pools.pool_selector(0.5) == {"label_selector": {pools.POOL_LABEL: "gpu"}}


def test_a_dead_labelled_node_does_not_count(monkeypatch):
    monkeypatch.setattr(pools.ray, "nodes", lambda: [{"Alive": False, "Labels": {pools.POOL_LABEL: "cpu"}}])
    assert pools.pool_selector(0) == {}
