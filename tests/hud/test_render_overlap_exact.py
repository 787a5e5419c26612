"""The overlapped render loop (decode ahead, one encoder thread per output) writes exactly what a
plain serial loop over the same clip, record and whole-frame compositing would write."""

import os

import numpy as np

from g2w.hud.annotate import Annotator
from g2w.hud.layers import LayerSource
from g2w.hud.profile import SynthProfile
from g2w.hud.record import read_json
from g2w.hud.render import EncodeSettings, render_sample
from g2w.hud.seeds import SeedStreams
from g2w.video import VideoWriter, iter_frames, read_masks
from tests.hud.conftest import gameplay_frames, write_clip
from tests.hud.test_composite_regions import full_frame_reference


def test_mask_annotation_and_hud_pixels_match_a_serial_render(tmp_path, library):
    clip = write_clip(tmp_path / "clip.mp4", gameplay_frames(256, 144, 40, "corridor", seed=2))
    out = tmp_path / "sample"
    render_sample(clip, str(out), sample_id="s", clip_id="c", streams=SeedStreams(11),
                  profile=SynthProfile(duration_s=1.0), library=library, encode=EncodeSettings(18, "ultrafast"),
                  device="cpu")
    record = read_json(os.path.join(out, "record.json"))
    source = LayerSource(record, library.image)
    annotator = Annotator(source)
    n = record["video"]["frame_count"]
    masks = []
    drawn = 0
    with VideoWriter(tmp_path / "hud_ref.mp4", 256, 144, 30, crf=18, preset="ultrafast") as hud_ref:
        for index, decoded in zip(range(n), iter_frames(clip)):
            layers = source.frame(index)
            hud, mask = full_frame_reference(decoded.rgb, layers)
            drawn += int((hud != decoded.rgb).any())
            annotator.add(index, layers)
            hud_ref.write(hud)
            masks.append(mask)
    assert drawn > 0  # the HUD really draws
    assert np.array_equal(read_masks(os.path.join(out, "mask.mkv")), np.stack(masks))
    assert read_json(os.path.join(out, "annotation.json")) == annotator.result()
    # x264 is deterministic, so equal encoder input decodes to equal pixels
    ours = [f.rgb for f in iter_frames(os.path.join(out, "hud.mp4"))]
    ref = [f.rgb for f in iter_frames(tmp_path / "hud_ref.mp4")]
    assert len(ours) == n and all(np.array_equal(a, b) for a, b in zip(ours, ref))
