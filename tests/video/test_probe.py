import os

import av
import numpy as np
import pytest

from g2w.video import (
    CorruptVideoError,
    EmptyFileError,
    MissingFileError,
    NotMediaError,
    probe,
)


def test_probe_reports_geometry_rate_length_and_codec(make_video):
    info = probe(make_video(frames=45, fps=30, width=160, height=96))
    assert info.has_video
    assert (info.width, info.height, info.frame_count) == (160, 96, 45)
    assert info.fps == pytest.approx(30.0)
    assert info.duration_s == pytest.approx(1.5, abs=0.01)
    assert info.codec == "h264"
    assert info.rotation == 0


@pytest.mark.parametrize("fps", [24, 60, 30000 / 1001])
def test_probe_reads_the_written_rate(make_video, fps):
    info = probe(make_video(frames=20, fps=fps))
    assert info.fps == pytest.approx(fps, rel=1e-4)
    assert info.frame_count == 20


def test_probe_reads_display_rotation(tmp_path):
    path = str(tmp_path / "rotated.mp4")
    with av.open(path, "w") as container:
        stream = container.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.set_display_rotation(90)
        for _ in range(5):
            container.mux(stream.encode(av.VideoFrame.from_ndarray(np.zeros((48, 64, 3), np.uint8), format="rgb24")))
        container.mux(stream.encode(None))
    assert probe(path).rotation == 90


def test_audio_only_file_has_no_video_stream(tmp_path):
    path = str(tmp_path / "tone.wav")
    with av.open(path, "w") as container:
        stream = container.add_stream("pcm_s16le", rate=8000, layout="mono")
        samples = (np.sin(np.arange(8000) / 5) * 3000).astype(np.int16)[None]
        frame = av.AudioFrame.from_ndarray(samples, format="s16", layout="mono")
        frame.sample_rate = 8000
        container.mux(stream.encode(frame))
        container.mux(stream.encode(None))
    info = probe(path)
    assert not info.has_video
    assert info.duration_s == pytest.approx(1.0, abs=0.05)


def test_zero_byte_file_is_an_empty_file_error(tmp_path):
    path = tmp_path / "empty.mp4"
    path.write_bytes(b"")
    with pytest.raises(EmptyFileError) as err:
        probe(path)
    assert err.value.reason == "empty_file"


def test_text_file_is_not_media(tmp_path):
    path = tmp_path / "notes.mp4"
    path.write_text("these are not the frames you are looking for\n" * 20)
    with pytest.raises(NotMediaError) as err:
        probe(path)
    assert err.value.reason == "not_media"


def test_missing_file(tmp_path):
    with pytest.raises(MissingFileError):
        probe(tmp_path / "nowhere.mp4")


def test_mp4_cut_short_is_corrupt(make_video, tmp_path):
    """Half a file: its last frames cannot be decoded (or, without a front index, it cannot open)."""
    src = make_video(frames=60)
    data = open(src, "rb").read()
    path = tmp_path / "truncated.mp4"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CorruptVideoError) as err:
        probe(path)
    assert err.value.reason == "corrupt"


def test_faststart_mp4_cut_short_fails_the_tail_check(tmp_path):
    """With the index up front the file opens, but its last frames are missing."""
    path = str(tmp_path / "faststart.mp4")
    rng = np.random.default_rng(0)
    with av.open(path, "w", options={"movflags": "faststart"}) as container:
        stream = container.add_stream("libx264", rate=30)
        stream.width, stream.height, stream.pix_fmt = 160, 96, "yuv420p"
        stream.codec_context.gop_size = 10
        for _ in range(90):
            img = rng.integers(0, 256, (96, 160, 3), dtype=np.uint8)
            container.mux(stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")))
        container.mux(stream.encode(None))
    data = open(path, "rb").read()
    cut = tmp_path / "faststart_cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    assert probe(path).frame_count == 90
    with pytest.raises(CorruptVideoError):
        probe(cut)
    assert probe(cut, verify=False).frame_count == 90  # the header alone cannot tell


def test_garbage_after_a_valid_signature_is_corrupt(tmp_path):
    path = tmp_path / "garbage.mkv"
    path.write_bytes(b"\x1a\x45\xdf\xa3" + os.urandom(4096))
    with pytest.raises(CorruptVideoError):
        probe(path)
