"""Overlapping windows for long videos: they cover every frame, neighbours share at least the
overlap, weights ramp and sum to one, frames come out once and in order, and the output lands on
the source's own frame times."""

import numpy as np
import pytest

from g2w.remove.windows import Blender, blend_weights, source_frame_map, window_starts


@pytest.mark.parametrize("total", [1, 10, 17, 18, 40, 81, 200, 1601])
def test_windows_cover_everything_and_share_the_overlap(total):
    frames, overlap = 17, 4
    starts = window_starts(total, frames, overlap)
    assert starts[0] == 0 and starts == sorted(set(starts))
    assert starts[-1] + frames >= total and (total <= frames or starts[-1] + frames == total)
    assert all(b - a <= frames - overlap for a, b in zip(starts, starts[1:]))


def test_weights_sum_to_one_and_ramp_across_shared_frames():
    starts = window_starts(40, 17, 4)
    w = blend_weights(starts, 17, 40)
    total = np.zeros(40)
    for k, s in enumerate(starts):
        total[s : s + 17] += w[k]
    assert np.allclose(total, 1.0)
    shared = starts[0] + 17 - starts[1]
    first = w[0, 17 - shared :]
    assert np.all(np.diff(first) < 0) and 0 < first[-1] < first[0] < 1  # fades out as the next fades in


def test_a_blended_constant_stays_constant_and_each_frame_comes_out_once_in_order():
    total, frames = 50, 17
    starts = window_starts(total, frames, 4)
    blender = Blender(starts, frames, total)
    out = []
    for k in range(len(starts)):
        out += blender.add(k, np.full((frames, 2, 3, 3), 100 + k % 2, np.uint8))
    assert [i for i, _ in out] == list(range(total))
    values = np.array([f[0, 0, 0] for _, f in out])
    assert values.min() >= 100 and values.max() <= 101
    assert np.all(np.abs(np.diff(values.astype(int))) <= 1)  # no jump at a boundary


@pytest.mark.parametrize("fps", [24.0, 30.0, 60.0])
def test_the_output_has_the_sources_frame_count_at_its_rate(fps):
    seconds = 7.3
    n = round(seconds * fps)
    model = int(np.ceil(n / fps * 16))
    shown = source_frame_map(n, fps, 16.0, model)
    assert len(shown) == n and shown[0] == 0 and shown[-1] <= model - 1
    assert np.all(np.diff(shown) >= 0) and np.all(np.diff(shown) <= 1)  # nearest model frame, never skipping


def test_bad_window_settings_are_refused():
    with pytest.raises(ValueError):
        window_starts(10, 8, 8)
