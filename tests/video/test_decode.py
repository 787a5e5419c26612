import numpy as np
import pytest

from g2w.video import FrameReader, iter_frames
from tests.conftest import frame_index_of, numbered_frame


def test_read_returns_the_asked_frames_in_the_asked_order(make_video):
    reader = FrameReader(make_video(frames=30))
    frames = reader.read([20, 3, 11])
    assert frames.shape == (3, 96, 160, 3)
    assert [frame_index_of(f) for f in frames] == [20, 3, 11]
    expected = numbered_frame(11, 160, 96).astype(int)
    assert np.abs(frames[2].astype(int) - expected).mean() < 3  # codec tolerance


def test_read_rejects_indices_outside_the_video(make_video):
    reader = FrameReader(make_video(frames=10))
    with pytest.raises(IndexError):
        reader.read([10])


@pytest.mark.parametrize("fps", [24, 30, 60])
def test_read_at_picks_the_frame_on_screen(make_video, fps):
    reader = FrameReader(make_video(frames=36, fps=fps))
    times = [0.0, 0.5 / fps, 1.0 / fps, 10.0 / fps, 35.0 / fps]
    assert list(reader.index_at(times)) == [0, 0, 1, 10, 35]
    assert [frame_index_of(f) for f in reader.read_at([10.0 / fps, 20.4 / fps])] == [10, 20]


def test_read_at_clamps_past_the_end(make_video):
    reader = FrameReader(make_video(frames=10, fps=10))
    assert list(reader.index_at([5.0])) == [9]


def test_reader_scales_while_decoding(make_video):
    reader = FrameReader(make_video(frames=5), width=80, height=48)
    assert reader.read([0]).shape == (1, 48, 80, 3)


def test_iter_frames_streams_every_frame_in_order(make_video):
    frames = list(iter_frames(make_video(frames=30, fps=30)))
    assert [f.index for f in frames] == list(range(30))
    assert [frame_index_of(f.rgb) for f in frames] == list(range(30))
    assert frames[15].time_s == pytest.approx(0.5, abs=1e-3)


def test_iter_frames_window_and_scaling(make_video):
    frames = list(iter_frames(make_video(frames=36, fps=12), start_s=1.0, end_s=2.0, width=40, height=24))
    assert [f.index for f in frames] == list(range(12, 24))
    assert [frame_index_of(f.rgb) for f in frames] == list(range(12, 24))
    assert frames[0].rgb.shape == (24, 40, 3)
