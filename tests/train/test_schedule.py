import numpy as np
import pytest

from g2w.train import FitConfig, schedule


def test_order_is_a_pure_function_of_seed_and_step_and_covers_each_epoch():
    a = [schedule.global_batch(0, s, 4, 10) for s in range(5)]
    b = [schedule.global_batch(0, s, 4, 10) for s in range(5)]
    assert all((x == y).all() for x, y in zip(a, b))
    stream = np.concatenate(a)
    assert sorted(stream[:10]) == list(range(10)) and sorted(stream[10:20]) == list(range(10))
    assert not (schedule.global_batch(1, 0, 4, 10) == a[0]).all()


def test_two_workers_see_the_micro_batches_of_one_worker_accumulating_twice():
    one = schedule.micro_batches(3, 7, 4, 2, 9, rank=0, world=1)
    two = schedule.micro_batches(3, 7, 4, 2, 9, rank=0, world=2) + schedule.micro_batches(
        3, 7, 4, 2, 9, rank=1, world=2
    )
    assert [(i.tolist(), s) for i, s in one] == [(i.tolist(), s) for i, s in two]
    assert len({s for _, s in one}) == 2


def test_batch_split_must_divide():
    assert FitConfig("x", global_batch=8, micro_batch=2, num_workers=2).accumulation() == 2
    try:
        FitConfig("x", global_batch=6, micro_batch=4).validate()
    except ValueError as exc:
        assert "not a multiple" in str(exc)
    else:
        raise AssertionError("an uneven split must be refused")


def test_warmup_is_linear_then_constant():
    assert [schedule.learning_rate(1.0, s, 4) for s in range(6)] == [0.25, 0.5, 0.75, 1.0, 1.0, 1.0]


def test_cosine_falls_from_the_peak_to_the_floor_after_warmup():
    rates = [schedule.learning_rate(2.0, s, 2, 10, "cosine", 0.1) for s in range(11)]
    assert rates[:3] == [1.0, 2.0, 2.0]  # warm-up, then the decay starts at the peak
    assert all(a > b for a, b in zip(rates[2:], rates[3:]))
    assert rates[6] == pytest.approx(1.1) and rates[10] == pytest.approx(0.2)
    with pytest.raises(ValueError, match="lr_schedule"):
        FitConfig("x", lr_schedule="linear").validate()
