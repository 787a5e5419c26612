"""A tiny segmenter overfits a few synthesized samples: the data, loss and model can learn; and the
task runs through the shared harness, saving weights in the shipped checkpoint's format."""

import json
import os
from dataclasses import asdict

import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.task import SegmenterTask, generator_rng
from g2w.train import FitConfig
from g2w.train.loop import train_worker
from g2w.train.session import LocalSession


def test_tiny_segmenter_overfits_two_samples(synth_out, tmp_path):
    config = HudSegmenterConfig(span=8, input_long_side=128, widths=(12, 16, 24))
    task = SegmenterTask(
        data=[synth_out],
        val=[synth_out],
        cache_dir=str(tmp_path),
        model=asdict(config),
        crop=128,
        crfs=(None,),
        lr=1e-2,
        seed=0,
        jitter=False,
    )
    model = task.build_model("cpu")
    optimizer = torch.optim.Adam(task.trainable_parameters(model).values(), lr=task.lr)
    steps, n = 250, task.num_examples()
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, steps)
    for step in range(steps):
        batch = task.load_batch([(step * 4 + k) % n for k in range(4)], "cpu")
        loss = task.loss(model, batch, torch.Generator().manual_seed(step))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
    metrics = task.metrics(model)
    assert metrics["mask_iou"] > 0.9, metrics


def test_augmentation_comes_from_the_generator(synth_out, tmp_path):
    task = SegmenterTask(
        data=[synth_out],
        val=[synth_out],
        cache_dir=str(tmp_path),
        model=asdict(HudSegmenterConfig.tiny()),
        crop=32,
        crfs=(None,),
    )
    a, b, c = (task.examples([0, 0], generator_rng(torch.Generator().manual_seed(s))) for s in (1, 1, 2))
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a[0], c[0])


def test_harness_run_saves_the_shipped_format(synth_out, tmp_path):
    config = HudSegmenterConfig.tiny()
    task = SegmenterTask(
        data=[synth_out],
        val=[synth_out],
        cache_dir=str(tmp_path / "cache"),
        model=asdict(config),
        crop=32,
        crfs=(None, 30),
    )
    cfg = FitConfig(output=str(tmp_path / "run"), steps=2, global_batch=2, micro_batch=1, lr=1e-3, checkpoint_every=1)
    train_worker(task, cfg, LocalSession(str(tmp_path / "run")))
    cfg.steps = 3  # resumes from step 2 through the task's load_weights (strict)
    assert train_worker(task, cfg, LocalSession(str(tmp_path / "run")))["step"] == 3
    ckpt = sorted(p for p in os.listdir(tmp_path / "run") if p.startswith("checkpoint"))[-1]
    folder = tmp_path / "run" / ckpt
    (tmp_path / "model").mkdir()
    os.replace(folder / "weights.safetensors", tmp_path / "model" / "hud_segmenter.safetensors")
    (tmp_path / "model" / "hud_segmenter.json").write_text(json.dumps(asdict(config)))
    net = HudSegmenter.from_pretrained(str(tmp_path / "model"))  # strict: BatchNorm statistics included
    assert set(net.state_dict()) > {n for n, _ in net.named_parameters()}
    metrics = json.loads((folder / "validation" / "metrics.json").read_text())
    assert 0.0 <= metrics["mask_iou"] <= 1.0
    assert (folder / "validation" / "overlays.png").exists()
    assert np.isfinite(json.loads((folder / "state.json").read_text())["history"][-1]["loss"])
