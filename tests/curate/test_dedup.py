import numpy as np

from g2w.curate.dedup import temporal_dedup


def _unit(*vectors):
    v = np.array(vectors, np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _run(emb, sources=None, windows=None, sampled=None, threshold=0.94):
    n = len(emb)
    sources = np.array(sources or ["s"] * n)
    windows = np.array(windows if windows is not None else range(n))
    sampled = np.array(sampled if sampled is not None else [True] * n)
    return temporal_dedup(sources, windows, emb, sampled, threshold)


def test_the_later_window_of_a_similar_pair_goes():
    dup_of, sim = _run(_unit([1, 0], [1, 0.01]))
    assert list(dup_of) == [-1, 0] and sim[1] > 0.99 and np.isnan(sim[0])


def test_threshold_is_strict():
    e = _unit([1, 0], [0.94, np.sqrt(1 - 0.94**2)])
    assert list(_run(e, threshold=0.94)[0]) == [-1, -1]
    assert list(_run(e, threshold=0.93)[0]) == [-1, 0]


def test_chain_a_b_c_where_b_c_is_closest():
    # sim(b, c) > sim(a, b) > threshold: (b, c) acts first and uses b, so (a, b) cannot act
    e = _unit([1, 0, 0], [1, 0.2, 0], [1, 0.21, 0])
    dup_of, _ = _run(e)
    assert list(dup_of) == [-1, -1, 1]


def test_chain_a_b_c_where_a_b_is_closest():
    # (a, b) acts first: b goes and is used, so (b, c) cannot act and c stays
    e = _unit([1, 0, 0], [1, 0.01, 0], [1, 0.2, 0.05])
    dup_of, _ = _run(e)
    assert list(dup_of) == [-1, 0, -1]


def test_ties_break_by_source_then_window():
    e = _unit([1, 0], [1, 0], [1, 0], [1, 0])  # every adjacent pair has similarity 1
    dup_of, _ = _run(e)
    assert list(dup_of) == [-1, 0, -1, 2]  # (0,1) first by window order, then (2,3)
    windows = [3, 1, 0, 2]  # the same windows in another row order: the same decisions
    again, _ = _run(e, windows=windows)
    removed = {windows[j]: windows[again[j]] for j in range(4) if again[j] >= 0}
    assert removed == {1: 0, 3: 2}


def test_only_adjacent_sampled_windows_of_one_source_are_compared():
    e = _unit([1, 0], [1, 0], [1, 0], [1, 0])
    assert list(_run(e, sources=["a", "b", "a", "b"], windows=[0, 0, 1, 1])[0]) == [-1, -1, 0, 1]
    assert list(_run(e, windows=[0, 2, 4, 6])[0]) == [-1, -1, -1, -1]  # gaps: not adjacent
    assert list(_run(e, sampled=[True, False, True, True])[0]) == [-1, -1, -1, 2]
