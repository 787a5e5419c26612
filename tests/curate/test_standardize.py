import subprocess

import numpy as np
import pytest

from g2w.curate.standardize import StandardizeClips, fit, on_screen, output_times
from g2w.video import FrameReader, probe
from tests.conftest import frame_index_of


@pytest.mark.parametrize(
    "w, h, rot, expect",
    [
        (1920, 1080, 0, (1280, 720, 0, 0)),  # same shape: fills the canvas
        (1280, 720, 0, (1280, 720, 0, 0)),
        (1920, 800, 0, (1280, 534, 0, 93)),  # wider (cinema): letterbox, bars above and below
        (640, 480, 0, (960, 720, 160, 0)),  # 4:3: pillarbox, bars left and right
        (720, 1280, 0, (404, 720, 438, 0)),  # portrait phone video
        (1280, 720, 90, (404, 720, 438, 0)),  # landscape pixels shown rotated: portrait
        (1000, 562, 0, (1280, 720, 0, 0)),  # odd size, near 16:9
        (853, 480, 0, (1280, 720, 0, 0)),
    ],
)
def test_fit_keeps_aspect_and_centres(w, h, rot, expect):
    p = fit(w, h, rot, 1280, 720)
    assert (p.width, p.height, p.x, p.y) == expect
    assert p.width % 2 == 0 and p.height % 2 == 0
    assert p.x + p.width <= 1280 and p.y + p.height <= 720


def test_fit_shows_anamorphic_pixels_at_their_display_shape():
    assert fit(720, 576, 0, 1280, 720, sar=64 / 45) == fit(1024, 576, 0, 1280, 720)  # PAL 16:9
    p = fit(1440, 1080, 0, 1280, 720, sar=4 / 3)  # HDV: 1440 stored, 1920 shown
    assert (p.width, p.height, p.x, p.y) == (1280, 720, 0, 0)


def test_an_anamorphic_source_is_standardized_undistorted(make_video, tmp_path):
    src = make_video("square.mp4", frames=24 * 7, fps=24, width=320, height=240)
    wide = str(tmp_path / "wide.mp4")
    subprocess.run(
        ["ffmpeg", "-v", "error", "-y", "-i", src, "-vf", "setsar=2", "-c:v", "libx264", "-preset", "ultrafast", wide],
        check=True,
    )
    (tmp_path / "clips").mkdir()
    row = {
        "clip_id": np.array(["w"]),
        "source": np.array([wide]),
        "start_s": np.array([0.0]),
        "width": np.array([320]),
        "height": np.array([240]),
        "fps": np.array([24.0]),
        "rotation": np.array([0]),
    }
    out = StandardizeClips(str(tmp_path / "clips"), preset="ultrafast")(row)
    frame = FrameReader(out["clip_path"][0]).read_at([1.0])[0].astype(int)
    rows_lit = np.flatnonzero(frame.max(axis=(1, 2)) > 40)
    assert (rows_lit.min(), rows_lit.max()) == (120, 599)  # 640x240 shown -> 1280x480, bars of 120 above and below


def _source_frames(fps: float, seconds: float, start=0.0):
    return [(start + i / fps, i) for i in range(round(seconds * fps))]


@pytest.mark.parametrize(
    "fps, expected",
    [
        (24, [0, 0, 1, 2, 3, 4, 4, 5]),  # 24 -> 30: some frames show twice
        (60, [0, 2, 4, 6, 8, 10, 12, 14]),  # 60 -> 30: every other frame
        (30, [0, 1, 2, 3, 4, 5, 6, 7]),
    ],
)
def test_frames_are_picked_by_timestamp(fps, expected):
    picked = list(on_screen(_source_frames(fps, 1.0), output_times(0.0, 8, 30), 1 / fps))
    assert picked == expected


def test_variable_frame_rate_and_offsets():
    times = [0.0, 0.01, 0.2, 0.21, 0.5]  # irregular stream
    frames = [(t, k) for k, t in enumerate(times)]
    assert list(on_screen(frames, np.array([0.0, 0.1, 0.2, 0.3, 0.45, 0.5]), 0.04)) == [0, 1, 2, 3, 3, 4]
    # a window starting late: earlier frames are skipped, the one on screen at the start is used
    assert list(on_screen(_source_frames(10, 3.0), output_times(1.05, 3, 30), 0.1)) == [10, 10, 11]


def test_the_stream_ending_early_stops_the_output():
    assert len(list(on_screen(_source_frames(30, 0.5), output_times(0.0, 30, 30), 1 / 30))) == 15


def test_a_real_clip_is_150_frames_720p_30fps(make_video, tmp_path):
    src = make_video("src.mp4", frames=24 * 7, fps=24, width=320, height=240)
    step = StandardizeClips(str(tmp_path / "clips"), preset="ultrafast")
    (tmp_path / "clips").mkdir()
    row = {
        "clip_id": np.array(["c1"]),
        "source": np.array([src]),
        "start_s": np.array([1.0]),
        "width": np.array([320]),
        "height": np.array([240]),
        "fps": np.array([24.0]),
        "rotation": np.array([0]),
    }
    out = step(row)
    assert list(out["std_status"]) == ["ok"]
    info = probe(out["clip_path"][0])
    assert (info.width, info.height, info.fps, info.frame_count) == (1280, 720, 30.0, 150)
    frames = FrameReader(out["clip_path"][0]).read([0, 1, 2, 3, 4, 5])
    assert (frames[:, :, :150] < 12).all() and (frames[:, :, -150:] < 12).all()  # pillarbox bars
    picture = frames[:, 100:600, 180:600]  # inside the left half of the scaled picture
    assert [frame_index_of(np.pad(f, ((0, 0), (0, f.shape[1]), (0, 0)))) for f in picture] == [24, 24, 25, 26, 27, 28]
    again = step(row)  # already written: skipped, still reported
    assert list(again["std_status"]) == ["ok"]


def test_a_source_too_short_for_the_window_gives_an_error_row(make_video, tmp_path):
    src = make_video("short.mp4", frames=60, fps=24, width=160, height=96)  # 2.5 s
    step = StandardizeClips(str(tmp_path), preset="ultrafast")
    row = {
        "clip_id": np.array(["c2"]),
        "source": np.array([src]),
        "start_s": np.array([0.0]),
        "width": np.array([160]),
        "height": np.array([96]),
        "fps": np.array([24.0]),
        "rotation": np.array([0]),
    }
    out = step(row)
    assert list(out["std_status"]) == ["error"] and "frames" in out["std_error"][0]
    assert not (tmp_path / "c2.mp4").exists() and not list(tmp_path.glob(".*"))
