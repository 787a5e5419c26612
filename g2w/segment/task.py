"""The segmenter as a task of the shared training harness (`g2w.train.TrainTask`).

The task is plain Python (no Ray): the harness (`g2w.train.fit`, Ray Train glue in
`g2w/runtime/train.py`) calls it on each Ray Train worker. Data is every sample folder under the
`--data` synthesis outputs; validation uses separate synthesis outputs (`--val`) made from other
clips with another asset library, so its widgets and backgrounds were never trained on. Training
samples are cached at several CRFs (one libx264 round trip each; the CRF of sample i is a pure
function of (seed, i)) so compression varies as it does in real footage. One training example is
one sample; the frame, crop and augmentation are drawn from a numpy RNG seeded from the
harness's per-micro-batch `generator`, so a run does not depend on the worker count and resumes
exactly. Weights are saved in the shipped checkpoint's format (the full state dict, BatchNorm
statistics included, as `HudSegmenter.save_pretrained` writes it).
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.segment.data import cached_sample, frame_input, random_item
from g2w.segment.losses import segmenter_loss
from g2w.segment.metrics import SegmentationScore
from g2w.segment.overlay import overlay
from g2w.segment.predict import FramePrediction, instances
from g2w.taxonomy import LABELS
from g2w.train.task import TrainTask

VAL_FRAMES_PER_SAMPLE = 6
OVERLAY_SAMPLES = 6


def sample_dirs(outputs: list[str]) -> list[str]:
    """Every finished sample folder (record.json present) under synthesis output folders."""
    found = []
    for out in outputs:
        found += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(out, "samples", "*", "record.json")))
    return found


def generator_rng(generator: torch.Generator) -> np.random.Generator:
    """A numpy RNG seeded deterministically from the harness's torch generator (advancing it)."""
    seed = torch.randint(0, 2 ** 62, (1,), generator=generator, device=generator.device)
    return np.random.default_rng(int(seed))


@dataclass
class SegmenterTask(TrainTask):
    data: list[str]
    val: list[str]
    cache_dir: str
    model: dict = field(default_factory=lambda: asdict(HudSegmenterConfig()))
    crop: int = 160
    crfs: tuple = (None, 23, 30, 38)  # None: the sample as synthesized
    lr: float = 3e-3
    seed: int = 0
    jitter: bool = True  # scale, aspect, colour and blur augmentation (off: crops only)

    name = "hud-segmenter"

    @property
    def config(self) -> HudSegmenterConfig:
        return HudSegmenterConfig.from_dict(self.model)

    def build_model(self, device: torch.device | str = "cpu") -> HudSegmenter:
        torch.manual_seed(self.seed)
        return HudSegmenter(self.config).to(device)

    def train_samples(self) -> list[dict]:
        """Decode (or read from the cache) the training samples, once per worker."""
        if getattr(self, "_train", None) is None:
            dirs = sample_dirs(self.data)
            if not dirs:
                raise ValueError(f"no synthesized samples under {self.data}")
            crfs = [self.crfs[int(np.random.default_rng([self.seed, i]).integers(len(self.crfs)))]
                    for i in range(len(dirs))]
            self._train = [cached_sample(d, self.config, self.cache_dir, crf) for d, crf in zip(dirs, crfs)]
        return self._train

    def __getstate__(self) -> dict:  # decoded samples stay on the worker that decoded them
        return {k: v for k, v in self.__dict__.items() if k != "_train"}

    def num_examples(self) -> int:
        return len(self.train_samples())

    def load_batch(self, indices: Sequence[int], device: torch.device | str = "cpu") -> dict:
        # Frames, crops and augmentation are random, so they are drawn in `loss` from its generator.
        return {"index": torch.as_tensor(list(indices), dtype=torch.int64)}

    def examples(self, indices: Sequence[int], rng: np.random.Generator, device: torch.device | str = "cpu"):
        """Augmented (input, UI target, label target) tensors: one random frame and crop per index."""
        samples = self.train_samples()
        items = [random_item([samples[int(i)]], self.config, self.crop, rng, self.jitter) for i in indices]
        return tuple(torch.stack(parts).to(device) for parts in zip(*items))

    def loss(self, model: torch.nn.Module, batch: dict, generator: torch.Generator) -> torch.Tensor:
        device = next(model.parameters()).device
        x, ui, labels = self.examples(batch["index"].tolist(), generator_rng(generator), device)
        ui_logits, label_logits = model(x)
        loss, _ = segmenter_loss(ui_logits, label_logits, ui, labels)
        return loss

    def save_weights(self, model: torch.nn.Module, path: str) -> None:
        """The full state dict (BatchNorm statistics too), as `HudSegmenter.save_pretrained` writes it."""
        from safetensors.torch import save_file

        save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, path)

    def load_weights(self, model: torch.nn.Module, path: str) -> None:
        from safetensors.torch import load_file

        model.load_state_dict(load_file(path, device=str(next(model.parameters()).device)))  # strict

    @torch.inference_mode()
    def metrics(self, model: HudSegmenter) -> dict:
        """Metrics over evenly spaced frames of every validation sample, at model resolution."""
        was_training = model.training
        model.eval()
        score = SegmentationScore()
        for d in sample_dirs(self.val):
            sample = cached_sample(d, self.config, self.cache_dir)
            n = len(sample["frames"])
            for t in np.linspace(0, n - 1, VAL_FRAMES_PER_SAMPLE).round().astype(int):
                pred = predict_frame(model, frame_input(sample, int(t), self.config), int(t))
                truth, labels = sample["ui"][t] > 0, sample["labels"][t]
                score.add_pixels(pred.ui >= 0.5, truth, pred.label_map(), labels)
                h, w = truth.shape
                score.add_boxes((d, int(t)), instances(pred, w, h), truth_boxes(sample, int(t)))
        model.train(was_training)
        return score.result()

    @torch.inference_mode()
    def overlays(self, model: HudSegmenter, path: str) -> str:
        """Held-out frames, truth and prediction side by side, as one PNG at `path`."""
        from g2w.report import contact_sheet, save_png

        was_training = model.training
        model.eval()
        images, labels = [], []
        for d in sample_dirs(self.val)[:OVERLAY_SAMPLES]:
            sample = cached_sample(d, self.config, self.cache_dir)
            t = len(sample["frames"]) // 2
            pred = predict_frame(model, frame_input(sample, t, self.config), t)
            frame = sample["frames"][t]
            images += [overlay(frame, sample["ui"][t]), overlay(frame, (pred.ui >= 0.5).astype(np.uint8))]
            labels += [f"{os.path.basename(d)[:28]} truth", "prediction"]
        model.train(was_training)
        save_png(path, contact_sheet(images, labels, 2, thumb_width=360))
        return path

    def validate(self, model: torch.nn.Module, out_dir: str, device: torch.device | str = "cpu") -> list[dict]:
        """Held-out metrics (`validation/metrics.json`) and overlays (`validation/overlays.png`)."""
        model = getattr(model, "module", model)
        cpu = HudSegmenter(self.config)
        cpu.load_state_dict({k: v.detach().cpu() for k, v in model.state_dict().items()})
        os.makedirs(out_dir, exist_ok=True)
        result = self.metrics(cpu)
        with open(os.path.join(out_dir, "metrics.json"), "w") as f:
            json.dump(result, f, indent=2)
        self.overlays(cpu, os.path.join(out_dir, "overlays.png"))
        return [{"label": "held-out frames: truth (left) and prediction (right)",
                 "image_overlays": "validation/overlays.png",
                 **{k: v for k, v in result.items() if not isinstance(v, dict)}}]


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

