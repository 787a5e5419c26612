import numpy as np
import pytest

from g2w.curate.balance import round_robin_sample


def test_rounds_take_one_per_cluster_before_any_second():
    clusters = np.array([0] * 50 + [1] * 5 + [2] * 2 + [3] * 1)
    eligible = np.ones(len(clusters), bool)
    for cap in range(1, 30):
        counts = np.bincount(clusters[round_robin_sample(clusters, eligible, cap, seed=0)], minlength=4)
        assert counts.sum() == cap
        available = np.bincount(clusters, minlength=4)
        # no cluster is ahead of another by more than one while both still have candidates
        for a in range(4):
            for b in range(4):
                if counts[b] < available[b]:
                    assert counts[a] <= counts[b] + 1


def test_cap_and_eligibility():
    clusters = np.array([0, 0, 1, 1, 2, 2])
    eligible = np.array([True, False, True, True, False, False])
    chosen = round_robin_sample(clusters, eligible, cap=100, seed=0)
    assert list(chosen) == list(eligible)
    assert round_robin_sample(clusters, eligible, cap=0, seed=0).sum() == 0
    assert not round_robin_sample(clusters, np.zeros(6, bool), cap=3, seed=0).any()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seeded_and_deterministic(seed):
    clusters = np.random.default_rng(9).integers(0, 7, 200)
    eligible = np.random.default_rng(10).random(200) > 0.3
    a = round_robin_sample(clusters, eligible, 40, seed)
    assert np.array_equal(a, round_robin_sample(clusters, eligible, 40, seed))
    assert a.sum() == 40 and not (a & ~eligible).any()


def test_different_seeds_pick_different_members():
    clusters = np.zeros(100, int)
    eligible = np.ones(100, bool)
    assert not np.array_equal(
        round_robin_sample(clusters, eligible, 10, 0), round_robin_sample(clusters, eligible, 10, 1)
    )
