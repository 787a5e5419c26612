"""The text-proposal map as an optional first input plane of the segmenter."""

import json
import os
from dataclasses import replace

import cv2
import numpy as np
import torch

from g2w.models.hud_segmenter import CONFIG_NAME, HudSegmenter, HudSegmenterConfig
from g2w.segment.data import augment
from g2w.segment.inputs import clip_inputs, stream_inputs
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter
from g2w.segment.task import with_text_plane
from g2w.video import VideoWriter


def test_old_configs_load_without_the_channel():
    with open(os.path.join(DEFAULT_CHECKPOINT, CONFIG_NAME)) as f:
        config = HudSegmenterConfig.from_dict(json.load(f))
    assert not config.text_channel
    assert config.in_channels == 3 * config.stack + 4
    assert replace(config, text_channel=True).in_channels == config.in_channels + 1
    Segmenter()  # the shipped weights load strictly with the channel off


def test_text_plane_goes_first_in_memory_and_streamed():
    config = replace(HudSegmenterConfig.tiny(), text_channel=True)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 255, (11, 12, 16, 3), dtype=np.uint8)
    texts = rng.random((11, 12, 16)).astype(np.float32)
    base = list(clip_inputs(frames, HudSegmenterConfig.tiny()))
    with_text = list(clip_inputs(frames, config, texts))
    streamed = list(stream_inputs(iter(frames), config, lambda t: texts[t]))
    for t in range(11):
        assert with_text[t].shape[0] == config.in_channels
        np.testing.assert_array_equal(with_text[t][0], texts[t])
        np.testing.assert_array_equal(with_text[t][1:], base[t])
        np.testing.assert_array_equal(streamed[t], with_text[t])


def test_warm_start_from_a_checkpoint_without_the_plane_computes_the_same():
    old = HudSegmenter(HudSegmenterConfig.tiny()).eval()
    new = HudSegmenter(replace(HudSegmenterConfig.tiny(), text_channel=True)).eval()
    new.load_state_dict(with_text_plane(old.state_dict(), new))
    x = torch.rand(1, old.config.in_channels, 24, 40)
    text = torch.rand(1, 1, 24, 40)
    with torch.inference_mode():
        a, b = old(x), new(torch.cat([text, x], 1))
    torch.testing.assert_close(a[0], b[0])
    torch.testing.assert_close(a[1], b[1])


def test_augment_keeps_the_text_plane_values():
    rng = np.random.default_rng(1)
    x = torch.rand(14, 40, 40)
    x[0] = (x[0] > 0.5).float()  # a 0/1 text map
    ui, labels = torch.zeros(40, 40), torch.full((40, 40), -1, dtype=torch.long)
    for seed in range(5):
        out, _, _ = augment(x, ui, labels, 32, np.random.default_rng(seed), jitter=True, leading=1)
        assert out.shape == (14, 32, 32)
        assert 0 <= out[0].min() and out[0].max() <= 1  # resampled and maybe blurred, never recoloured
    assert rng is not None


def test_segmenter_feeds_the_proposals_of_the_video(tmp_path):
    """A text-channel checkpoint: detection runs the OCR detector on the video and the network's
    first input plane is the proposal map, high on the rendered text, zero far from it."""
    config = replace(HudSegmenterConfig.tiny(), text_channel=True, text_every=4, input_long_side=160)
    HudSegmenter(config).save_pretrained(str(tmp_path / "ckpt"))
    w, h = 640, 360
    video = str(tmp_path / "text.mp4")
    with VideoWriter(video, w, h, 30) as writer:
        for i in range(10):
            frame = np.full((h, w, 3), 70 + i, np.uint8)
            cv2.putText(frame, "SCORE 1250  FRAGS 7", (40, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2)
            writer.write(frame)
    segmenter = Segmenter(str(tmp_path / "ckpt"))
    seen = []
    predict = segmenter.predict

    def spy(batch, first=0):
        seen.extend(batch)
        return predict(batch, first)

    segmenter.predict = spy
    preds = list(segmenter.frames(video))
    assert len(preds) == len(seen) == 10
    plane = seen[5][0]  # carried from the run on frame 4
    assert plane.shape == (90, 160)
    assert plane[10:16, 12:90].mean() > 0.5  # the text line, at the model's scale
    assert plane[50:, :].max() == 0
