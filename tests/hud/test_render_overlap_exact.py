"""The overlapped render loop (decode ahead, one encoder thread per output) writes exactly what a
plain serial loop over the same clip, record and whole-frame compositing would write: the clip's
own decoded I420 planes, the HUD blended into them, both encoded without any colour conversion."""

import os

import numpy as np

from g2w.hud.annotate import Annotator
from g2w.hud.layers import LayerSource
from g2w.hud.profile import SynthProfile
from g2w.hud.record import read_json
from g2w.hud.render import EncodeSettings, render_sample
from g2w.hud.seeds import SeedStreams
from g2w.video import VideoWriter, iter_video_frames, read_masks
from tests.hud.conftest import gameplay_frames, write_clip
from tests.hud.test_composite_regions import full_frame_yuv_reference


def decoded(path):
    """Every frame of a video as the decoder gives it, as (3h/2, w) I420 arrays."""
    return [frame.to_ndarray() for _, _, frame in iter_video_frames(path)]


def test_clean_hud_mask_and_annotation_match_a_serial_render(tmp_path, library):
    clip = write_clip(tmp_path / "clip.mp4", gameplay_frames(256, 144, 40, "corridor", seed=2))
    out = tmp_path / "sample"
    render_sample(
        clip,
        str(out),
        sample_id="s",
        clip_id="c",
        streams=SeedStreams(11),
        profile=SynthProfile(duration_s=1.0),
        library=library,
        encode=EncodeSettings(18, "ultrafast"),
        device="cpu",
    )
    record = read_json(os.path.join(out, "record.json"))
    source = LayerSource(record, library.image)
    annotator = Annotator(source)
    n = record["video"]["frame_count"]
    masks = []
    drawn = 0
    with (
        VideoWriter(tmp_path / "hud_ref.mp4", 256, 144, 30, crf=18, preset="ultrafast") as hud_ref,
        VideoWriter(tmp_path / "clean_ref.mp4", 256, 144, 30, crf=18, preset="ultrafast") as clean_ref,
    ):
        for index, frame in zip(range(n), decoded(clip)):
            layers = source.frame(index)
            hud, mask = full_frame_yuv_reference(frame, layers)
            drawn += int((hud != frame).any())
            annotator.add(index, layers)
            hud_ref.write_i420(hud)
            clean_ref.write_i420(frame)  # the clip's decoded planes, untouched
            masks.append(mask)
    assert drawn > 0  # the HUD really draws
    assert np.array_equal(read_masks(os.path.join(out, "mask.mkv")), np.stack(masks))
    assert read_json(os.path.join(out, "annotation.json")) == annotator.result()
    # x264 is deterministic, so equal encoder input decodes to equal pixels
    for name in ("hud", "clean"):
        ours, ref = decoded(os.path.join(out, f"{name}.mp4")), decoded(tmp_path / f"{name}_ref.mp4")
        assert len(ours) == n and all(np.array_equal(a, b) for a, b in zip(ours, ref)), name


def test_a_bt709_clip_keeps_its_matrix_and_its_tag(tmp_path, library):
    frames = gameplay_frames(256, 144, 12, "corridor", seed=3)
    clip = str(tmp_path / "clip709.mp4")
    with VideoWriter(clip, 256, 144, 30, crf=18, preset="ultrafast", bt709=True) as writer:
        for f in frames:
            writer.write(f)
    out = tmp_path / "s709"
    render_sample(
        clip,
        str(out),
        sample_id="s",
        clip_id="c",
        streams=SeedStreams(4),
        profile=SynthProfile(duration_s=0.4),
        library=library,
        encode=EncodeSettings(18, "ultrafast"),
        device="cpu",
    )
    for name in ("clean.mp4", "hud.mp4"):
        _, _, frame = next(iter_video_frames(os.path.join(out, name)))
        assert frame.colorspace == 1 and frame.color_range == 1, name  # BT.709, limited range
    # the clean planes are the clip's, through one more x264 pass: no colour shift
    source, clean = decoded(clip)[:12], decoded(os.path.join(out, "clean.mp4"))
    assert np.abs(np.stack(source).astype(int) - np.stack(clean)).mean() < 1.0
