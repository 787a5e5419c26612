"""The segmenter as a training task: model, parameters, data, loss step, validation and report.

The task is plain Python (no Ray): the training loop in `g2w.runtime.fit` calls it on each
Ray Train worker. Data is every sample folder under the `--data` synthesis outputs; validation
uses separate synthesis outputs (`--val`) made from other clips with another asset library, so
its widgets and backgrounds were never trained on. Training samples are cached at several CRFs
(one libx264 round trip each) so compression varies as it does in real footage.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.data import cached_sample, frame_input, random_item
from g2w.segment.losses import segmenter_loss
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import FramePrediction, instances
from g2w.taxonomy import LABELS

VAL_FRAMES_PER_SAMPLE = 6


def sample_dirs(outputs: list[str]) -> list[str]:
    """Every finished sample folder (record.json present) under synthesis output folders."""
    found = []
    for out in outputs:
        found += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(out, "samples", "*", "record.json")))
    return found


@dataclass
class SegmenterTask:
    data: list[str]
    val: list[str]
    cache_dir: str
    model: dict = field(default_factory=lambda: asdict(HudSegmenterConfig()))
    crop: int = 160
    batch_size: int = 16
    crfs: tuple = (None, 23, 30, 38)  # None: the sample as synthesized
    lr: float = 3e-3
    seed: int = 0
    jitter: bool = True  # scale, aspect, colour and blur augmentation (off: crops only)

    @property
    def config(self) -> HudSegmenterConfig:
        return HudSegmenterConfig.from_dict(self.model)

    def build_model(self) -> HudSegmenter:
        torch.manual_seed(self.seed)
        return HudSegmenter(self.config)

    def trainable_parameters(self, model: HudSegmenter) -> list[torch.nn.Parameter]:
        return [p for p in model.parameters() if p.requires_grad]

    def load(self, rank: int = 0, world: int = 1) -> None:
        """Decode (or read from the cache) this worker's share of the training samples."""
        dirs = sample_dirs(self.data)[rank::world]
        if not dirs:
            raise ValueError(f"no synthesized samples under {self.data}")
        rng = np.random.default_rng([self.seed, rank])
        self._train = [cached_sample(d, self.config, self.cache_dir, self.crfs[int(rng.integers(len(self.crfs)))])
                       for d in dirs]
        self._val_dirs = sample_dirs(self.val)
        self._rng = rng

    def batch(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        items = [random_item(self._train, self.config, self.crop, self._rng, self.jitter) for _ in range(self.batch_size)]
        return tuple(torch.stack(parts) for parts in zip(*items))

    def loss_step(self, model: HudSegmenter, batch) -> tuple[torch.Tensor, dict]:
        x, ui, labels = batch
        ui_logits, label_logits = model(x)
        return segmenter_loss(ui_logits, label_logits, ui, labels)

    @torch.inference_mode()
    def validate(self, model: HudSegmenter) -> dict:
        """Metrics over evenly spaced frames of every validation sample, at model resolution."""
        model.eval()
        score = SegmentationScore()
        for d in self._val_dirs:
            sample = cached_sample(d, self.config, self.cache_dir)
            n = len(sample["frames"])
            for t in np.linspace(0, n - 1, VAL_FRAMES_PER_SAMPLE).round().astype(int):
                pred = predict_frame(model, frame_input(sample, int(t), self.config), int(t))
                truth, labels = sample["ui"][t] > 0, sample["labels"][t]
                score.add_pixels(pred.ui >= 0.5, truth, pred.label_map(), labels)
                h, w = truth.shape
                score.add_boxes((d, int(t)), instances(pred, w, h), truth_boxes(sample, int(t)))
        model.train()
        return score.result()


def predict_frame(model: HudSegmenter, x: np.ndarray, index: int) -> FramePrediction:
    ui, labels = model(torch.from_numpy(x)[None])
    return FramePrediction(index, torch.sigmoid(ui[0, 0]).numpy(), torch.softmax(labels[0], 0).numpy())


def truth_boxes(sample: dict, t: int) -> list[tuple[str, list[int]]]:
    """Ground-truth boxes at model resolution: one per connected region of each label."""
    out = []
    labels = sample["labels"][t]
    for k in np.unique(labels[labels >= 0]):
        count, _, stats, _ = cv2.connectedComponentsWithStats((labels == k).astype(np.uint8), connectivity=8)
        for c in range(1, count):
            x, y, bw, bh, _ = stats[c]
            out.append((LABELS[int(k)], [int(x), int(y), int(x + bw), int(y + bh)]))
    return out


def write_metrics(run_dir: str, metrics: dict) -> str:
    path = os.path.join(run_dir, "metrics.json")
    with open(path, "w") as f:
        json.dump(metrics, f, indent=2)
    return path

