import os

import av
import numpy as np
import pytest

from g2w.video import VideoWriter, nvenc_available, probe
from g2w.video.encode import exact_rate
from tests.conftest import frame_index_of


@pytest.mark.parametrize("fps, frames", [(24, 48), (30, 150), (60, 61), (30000 / 1001, 30)])
def test_writer_keeps_exact_rate_and_frame_count(make_video, fps, frames):
    info = probe(make_video(frames=frames, fps=fps))
    assert info.frame_count == frames
    assert info.fps == pytest.approx(float(exact_rate(fps)), rel=1e-6)
    assert info.duration_s == pytest.approx(frames / fps, abs=1e-3)


def test_exact_rate_of_ntsc():
    assert exact_rate(29.97) == exact_rate(30000 / 1001)
    assert exact_rate(29.97).denominator == 1001


def test_crf_controls_quality(make_video):
    sizes = []
    for crf in (10, 40):
        path = make_video(f"crf{crf}.mp4", frames=10, crf=crf, preset="ultrafast")
        sizes.append(os.path.getsize(path))
    assert sizes[0] > sizes[1]


def test_odd_dimensions_are_refused(tmp_path):
    with pytest.raises(ValueError, match="even"):
        VideoWriter(tmp_path / "odd.mp4", 101, 50, 30)


def test_wrong_frame_shape_is_refused(tmp_path):
    with VideoWriter(tmp_path / "a.mp4", 64, 48, 30) as writer:
        with pytest.raises(ValueError):
            writer.write(np.zeros((48, 63, 3), np.uint8))
        writer.write(np.zeros((48, 64, 3), np.uint8))
    assert probe(tmp_path / "a.mp4").frame_count == 1


def test_an_interrupted_write_leaves_no_file(tmp_path):
    path = tmp_path / "never.mp4"
    with pytest.raises(RuntimeError):
        with VideoWriter(path, 64, 48, 30) as writer:
            writer.write(np.zeros((48, 64, 3), np.uint8))
            raise RuntimeError("worker died")
    assert os.listdir(tmp_path) == []


def test_frames_survive_the_round_trip(make_video):
    from g2w.video import FrameReader

    reader = FrameReader(make_video(frames=20, crf=18))
    assert [frame_index_of(f) for f in reader.read(range(20))] == list(range(20))


def test_nvenc_asked_for_without_a_usable_encoder_fails_clearly(tmp_path):
    if nvenc_available():
        pytest.skip("NVENC is usable here")
    with pytest.raises(RuntimeError, match="NVENC"):
        VideoWriter(tmp_path / "n.mp4", 64, 48, 30, encoder="nvenc")
    assert VideoWriter(tmp_path / "auto.mp4", 64, 48, 30, encoder="auto").codec == "libx264"


@pytest.mark.gpu
def test_nvenc_writes_exact_frames_when_present(tmp_path):
    if not nvenc_available():
        pytest.skip("this GPU has no NVENC engine (H100/H200 have none)")
    path = tmp_path / "nv.mp4"
    with VideoWriter(path, 256, 144, 30, encoder="nvenc") as writer:
        for i in range(30):
            writer.write(np.full((144, 256, 3), i * 8, np.uint8))
    assert probe(path).frame_count == 30


def test_threads_cap_the_encoder_and_the_decoder(tmp_path):
    import av

    from g2w.video.decode import iter_video_frames

    path = tmp_path / "capped.mp4"
    with VideoWriter(path, 64, 48, 10, threads=1) as writer:
        assert writer._stream.codec_context.thread_count == 1
        for i in range(12):
            writer.write(np.full((48, 64, 3), i * 10, np.uint8))
    with av.open(str(path)) as c:
        assert c.streams.video[0].frames == 12
    assert len(list(iter_video_frames(path, threads=2))) == 12


def test_bt709_output_is_converted_and_tagged_so(tmp_path):
    rgb = np.zeros((720, 1280, 3), np.uint8)
    rgb[:, :400], rgb[:, 400:800], rgb[:, 800:] = (230, 30, 20), (20, 200, 60), (40, 50, 220)
    path = tmp_path / "hd.mp4"
    with VideoWriter(path, 1280, 720, 30, preset="ultrafast", bt709=True) as w:
        for _ in range(3):
            w.write(rgb)
    with av.open(str(path)) as c:
        ctx = c.streams.video[0].codec_context
        assert (ctx.colorspace, ctx.color_primaries, ctx.color_trc, ctx.color_range) == (1, 1, 1, 1)
        frame = next(c.decode(video=0)).to_ndarray(format="rgb24")  # decoders follow the tag
    for x, colour in ((200, (230, 30, 20)), (600, (20, 200, 60)), (1000, (40, 50, 220))):
        assert np.abs(frame[360, x].astype(int) - colour).max() <= 3
