"""Timestamp alignment (J.1): the paper's two index examples, rounding, and the end rule."""

from g2w.evaluate.align import align, edit_too_short, edited_indices, eval_times, round_half_up, source_indices


def test_paper_examples():
    times = eval_times(150, 30.0)
    assert times == [k / 2 for k in range(10)]
    assert source_indices(times, 30.0) == [0, 15, 30, 45, 60, 75, 90, 105, 120, 135]
    assert edited_indices(times, 16.0, 81) == [0, 8, 16, 24, 32, 40, 48, 56, 64, 72]


def test_edit_index_is_clamped_to_last_frame():
    times = eval_times(150, 30.0)
    # A 2.5 s edit at 16 fps has 40 frames: later timestamps map to its last frame.
    assert edited_indices(times, 16.0, 40)[-5:] == [39, 39, 39, 39, 39]


def test_round_half_up_not_bankers():
    assert round_half_up(12.5) == 13 and round_half_up(2.5) == 3 and round_half_up(2.4999) == 2
    assert source_indices([0.5], 25.0) == [13]


def test_ntsc_rate_and_timestamps_within_source():
    times = eval_times(300, 30000 / 1001)
    assert times[-1] == 9.5  # round(10 * 29.97) = 300 is past the last frame
    assert source_indices(times, 30000 / 1001)[-1] <= 299


def test_align_pairs_ids_and_indices():
    samples = align(150, 30.0, 81, 16.0)
    assert [s.sample_id for s in samples[:3]] == ["f0000", "f0001", "f0002"]
    assert (samples[3].t, samples[3].source_index, samples[3].edited_index) == (1.5, 45, 24)


def test_edit_ending_early_fails_beyond_tolerance():
    # Last timestamp of a 150-frame 30 fps source is 4.5 s.
    assert edit_too_short(150, 30.0, 81, 16.0)[0] is False  # ends at 5.06 s
    assert edit_too_short(150, 30.0, 134, 30.0)[0] is False  # ends at 4.4667 s: within 0.05 s
    short, duration, last = edit_too_short(150, 30.0, 133, 30.0)  # ends at 4.4333 s
    assert short and last == 4.5 and abs(duration - 133 / 30) < 1e-9
