"""The segmenter model and its inputs: shapes, parameters, save/load, streaming = in-memory inputs."""

import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.inputs import clip_inputs, model_size, stream_inputs, window_stats
from g2w.segment.task import SegmenterTask
from g2w.taxonomy import LABELS


def test_shapes_for_odd_sizes_and_all_parameters_train():
    config = HudSegmenterConfig.tiny()
    model = HudSegmenter(config)
    x = torch.rand(2, config.in_channels, 37, 53)  # not a multiple of the U-Net's stride
    ui, labels = model(x)
    assert ui.shape == (2, 1, 37, 53)
    assert labels.shape == (2, len(LABELS), 19, 27)
    task = SegmenterTask(data=[], val=[], cache_dir="", model=config.__dict__)
    params = list(task.trainable_parameters(model).values())
    assert sum(p.numel() for p in params) == sum(p.numel() for p in model.parameters()) > 0
    (ui.mean() + labels.mean()).backward()
    assert all(p.grad is not None for p in params)


def test_save_and_load_give_the_same_outputs(tmp_path):
    model = HudSegmenter(HudSegmenterConfig.tiny()).eval()
    model.save_pretrained(str(tmp_path))
    again = HudSegmenter.from_pretrained(str(tmp_path))
    assert again.config == model.config
    x = torch.rand(1, model.config.in_channels, 24, 40)
    with torch.inference_mode():
        assert torch.equal(model(x)[0], again(x)[0])


def test_streamed_inputs_equal_in_memory_inputs():
    config = HudSegmenterConfig.tiny()  # span 8, stack of 3 frames 2 apart
    frames = np.random.default_rng(0).integers(0, 255, (21, 12, 16, 3), dtype=np.uint8)
    in_memory = list(clip_inputs(frames, config))
    streamed = list(stream_inputs(iter(frames), config))
    assert len(in_memory) == len(streamed) == 21
    assert all(np.array_equal(a, b) for a, b in zip(in_memory, streamed))
    assert in_memory[0].shape == (config.in_channels, 12, 16)


def test_static_pixels_have_no_spread_and_moving_ones_do():
    frames = np.random.default_rng(1).integers(0, 255, (9, 4, 4, 3), dtype=np.uint8)
    frames[:, 0, 0] = 200  # a static "widget" pixel
    median, spread = window_stats(frames)
    assert tuple(median[0, 0]) == (200, 200, 200) and spread[0, 0] == 0
    assert spread[1:, 1:].mean() > 20


def test_model_size_keeps_aspect_and_never_upscales():
    assert model_size(1280, 720, 320) == (320, 180)
    assert model_size(720, 1280, 320) == (180, 320)
    assert model_size(200, 100, 320) == (200, 100)
    assert model_size(1, 1, 320) == (8, 8)


def test_inference_copy_folds_batchnorm_and_keeps_the_outputs():
    model = HudSegmenter(HudSegmenterConfig.tiny())
    model.train()
    with torch.no_grad():
        for _ in range(3):  # non-trivial running statistics for the folding to carry
            model(torch.rand(2, model.config.in_channels, 40, 56) * 2)
    model.eval()
    fast = model.for_inference()
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in fast.modules())
    x = torch.rand(2, model.config.in_channels, 37, 53)
    with torch.inference_mode():
        (ui, labels), (ui2, labels2) = model(x), fast(x.contiguous(memory_format=torch.channels_last))
    assert torch.allclose(ui, ui2, atol=1e-4) and torch.allclose(labels, labels2, atol=1e-4)
    assert any(isinstance(m, torch.nn.BatchNorm2d) for m in model.modules())  # the original is untouched


def test_temporal_median_is_numpys_median_for_any_count():
    from g2w.segment.inputs import temporal_median

    rng = np.random.default_rng(2)
    for n in (1, 2, 3, 7, 8, 17, 32, 33):
        frames = rng.integers(0, 256, (n, 5, 6, 3), dtype=np.uint8)
        assert np.array_equal(temporal_median(frames), np.median(frames, axis=0).astype(np.uint8)), n


def test_full_mask_thresholds_the_upsampled_probability():
    from g2w.segment.predict import FramePrediction, full_mask

    prob = np.random.default_rng(3).random((18, 32)).astype(np.float32)
    pred = FramePrediction(0, prob, np.zeros((len(LABELS), 9, 16), np.float32))
    got = full_mask(pred, 128, 72)
    import cv2

    want = cv2.resize(prob, (128, 72), interpolation=cv2.INTER_LINEAR) >= 0.5
    assert set(np.unique(got)) <= {0, 255}
    assert np.mean((got > 0) != want) < 0.01  # only pixels within 1/255 of the threshold may differ
    assert np.array_equal(full_mask(pred, 32, 18) > 0, prob >= 0.5)


def test_scale_jitter_keeps_targets_on_the_input_pixels():
    from g2w.segment.data import rescale

    x = torch.zeros(1, 20, 30)
    x[0, 7:9, 11:14] = 1  # a thin widget, 2 px tall
    ui, labels = x[0].clone(), (x[0] * 5 - 1).long()
    for size in [(32, 48), (13, 19), (25, 41), (12, 18)]:
        xs, us, ls = rescale(x, ui, labels, size)
        # the target is where the bilinearly scaled input is mostly widget (ties at 0.5 aside)
        inside = xs[0] >= 0.5
        ties = (xs[0] - 0.5).abs() < 1e-6
        assert torch.equal(inside[~ties], us.bool()[~ties]), size
        assert torch.equal(ls >= 0, us.bool())
