"""One sample end to end through the encoders: outputs, codec noise, record -> annotation, 720p."""

import json
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from g2w.hud.profile import SynthProfile
from g2w.hud.record import annotation_from_record_file, read_json
from g2w.hud.render import EncodeSettings, render_sample
from g2w.hud.seeds import SeedStreams
from g2w.video import FrameReader, probe, read_masks
from g2w.video.errors import VideoError
from tests.hud.conftest import gameplay_frames, write_clip

ANNOTATION_KEYS = {
    "version",
    "width",
    "height",
    "fps",
    "frame_count",
    "coordinates",
    "alpha_threshold",
    "instances",
    "frames",
}


@pytest.fixture(scope="module")
def small_sample(tmp_path_factory, library_dir):
    from g2w.hud.assets import AssetLibrary

    tmp = tmp_path_factory.mktemp("sample")
    frames = gameplay_frames(320, 180, 36, "corridor")
    clip = write_clip(tmp / "clip.mp4", frames)
    out = tmp / "samples" / "one"
    info = render_sample(
        clip,
        str(out),
        sample_id="one",
        clip_id="clip",
        streams=SeedStreams(5),
        profile=SynthProfile(duration_s=1.0),
        library=AssetLibrary.open(library_dir),
        encode=EncodeSettings(18, "veryfast"),
        device="cpu",
    )
    return clip, str(out), info


def luma(frames):
    return np.stack([cv2.cvtColor(f, cv2.COLOR_RGB2GRAY) for f in frames]).astype(np.int16)


def test_sample_folder_holds_every_output_in_its_contract(small_sample):
    clip, out, info = small_sample
    assert sorted(os.listdir(out)) == [
        "annotation.json",
        "clean.mp4",
        "hud.mp4",
        "mask.mkv",
        "preview.png",
        "record.json",
    ]
    for name in ("clean.mp4", "hud.mp4"):
        v = probe(os.path.join(out, name))
        assert (v.width, v.height, v.frame_count, round(v.fps)) == (320, 180, 30, 30) and v.codec == "h264"
    masks = read_masks(os.path.join(out, "mask.mkv"))
    assert masks.shape == (30, 180, 320) and set(np.unique(masks)) <= {0, 255}
    ann = read_json(os.path.join(out, "annotation.json"))
    assert set(ann) == ANNOTATION_KEYS and ann["coordinates"] == "half-open xyxy" and ann["alpha_threshold"] == 8
    assert [f["frame"] for f in ann["frames"]] == list(range(30))
    for inst in ann["instances"]:
        required = {"id", "label", "role", "kind", "asset_id", "asset_source", "parent"}
        assert required <= set(inst) <= required | {"translucent", "opacity", "text"}
        assert inst["kind"] in ("persistent", "transient", "child")
    record = read_json(os.path.join(out, "record.json"))
    assert record["seed"] == 5 and record["clip_id"] == "clip" and record["video"]["frame_count"] == 30
    assert info["instances"] == len(ann["instances"]) > 0


def test_hud_and_clean_differ_outside_the_mask_only_by_codec_noise(small_sample):
    clip, out, _ = small_sample
    source = luma(FrameReader(clip).read(range(30)))
    clean = luma(FrameReader(os.path.join(out, "clean.mp4")).read(range(30)))
    hud = luma(FrameReader(os.path.join(out, "hud.mp4")).read(range(30)))
    masks = read_masks(os.path.join(out, "mask.mkv"))
    near = np.stack([cv2.dilate(m, np.ones((17, 17), np.uint8)) for m in masks]) > 0  # codec blocks bleed
    codec = np.abs(clean - source)[~near]  # what the encoder alone does to these pixels
    outside = np.abs(hud - clean)[~near]
    assert outside.mean() <= 1.5 * codec.mean() + 0.25
    assert np.percentile(outside, 99) <= 1.5 * np.percentile(codec, 99) + 2
    inside = np.abs(hud - clean)[masks > 0]
    assert inside.mean() > 3 * outside.mean()  # the HUD really is there


def test_annotate_command_rebuilds_the_annotation_exactly(small_sample, tmp_path):
    _, out, _ = small_sample
    record = os.path.join(out, "record.json")
    assert annotation_from_record_file(record) == read_json(os.path.join(out, "annotation.json"))
    target = tmp_path / "rebuilt.json"
    done = subprocess.run(
        [sys.executable, "-m", "g2w.cli", "annotate", record, "--output", str(target)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == open(os.path.join(out, "annotation.json"), "rb").read()
    printed = subprocess.run([sys.executable, "-m", "g2w.cli", "annotate", record], capture_output=True, text=True)
    assert json.loads(printed.stdout) == read_json(os.path.join(out, "annotation.json"))


def test_annotate_refuses_a_changed_asset(small_sample, tmp_path):
    import shutil

    from g2w.hud.record import AssetMismatchError

    _, out, _ = small_sample
    record = read_json(os.path.join(out, "record.json"))
    lib = tmp_path / "lib"
    shutil.copytree(record["library"]["root"], lib)
    victim = next(iter(record["library"]["assets"].values()))["path"]
    from PIL import Image

    img = np.asarray(Image.open(lib / victim)).copy()
    img[0, 0, 0] ^= 1
    Image.fromarray(img).save(lib / victim)
    with pytest.raises(AssetMismatchError):
        annotation_from_record_file(os.path.join(out, "record.json"), str(lib))


def test_bad_clips_raise_typed_errors_and_leave_nothing(tmp_path, library):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42 truncated")
    with pytest.raises(VideoError) as err:
        render_sample(
            str(bad),
            str(tmp_path / "s"),
            sample_id="s",
            clip_id="bad",
            streams=SeedStreams(0),
            profile=SynthProfile(),
            library=library,
        )
    assert err.value.reason == "corrupt"
    assert not os.path.exists(tmp_path / "s") and not any(p.name.startswith(".s") for p in tmp_path.iterdir())


@pytest.mark.slow
def test_the_720p_five_second_profile_end_to_end(tmp_path, library):
    frames = gameplay_frames(1280, 720, 150, "racing")
    clip = write_clip(tmp_path / "clip720.mp4", frames, crf=23)
    out = tmp_path / "s720"
    render_sample(
        clip,
        str(out),
        sample_id="s720",
        clip_id="clip720",
        streams=SeedStreams(11),
        profile=SynthProfile(),
        library=library,
        encode=EncodeSettings(20, "ultrafast"),
        device="cpu",
    )
    for name in ("clean.mp4", "hud.mp4"):
        v = probe(str(out / name))
        assert (v.width, v.height, v.frame_count, v.fps) == (1280, 720, 150, 30.0)
    ann = read_json(out / "annotation.json")
    assert (ann["width"], ann["height"], ann["fps"], ann["frame_count"]) == (1280, 720, 30.0, 150)
    assert len(ann["frames"]) == 150 and ann["instances"]
    record = read_json(out / "record.json")
    assert record["profile"]["opacity"] == 0.94 and record["profile"]["collision_threshold"] == 0.14
    assert record["profile"]["jitter"] == [0.018, 0.018] and record["profile"]["aesthetic"] is False
    assert annotation_from_record_file(str(out / "record.json")) == ann
