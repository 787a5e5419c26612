"""A tiny segmenter overfits a few synthesized samples: the data, loss and model can learn."""

from dataclasses import asdict

import torch

from g2w.models.hud_segmenter import HudSegmenterConfig
from g2w.segment.task import SegmenterTask


def test_tiny_segmenter_overfits_two_samples(synth_out, tmp_path):
    config = HudSegmenterConfig(span=8, input_long_side=128, widths=(12, 16, 24))
    task = SegmenterTask(data=[synth_out], val=[synth_out], cache_dir=str(tmp_path), model=asdict(config),
                         crop=128, batch_size=4, crfs=(None,), lr=1e-2, seed=0, jitter=False)
    torch.manual_seed(0)
    task.load()
    model = task.build_model()
    optimizer = torch.optim.Adam(task.trainable_parameters(model), lr=task.lr)
    steps = 250
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    for _ in range(steps):
        loss, _ = task.loss_step(model, task.batch())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
    metrics = task.validate(model)
    assert metrics["mask_iou"] > 0.9, metrics
