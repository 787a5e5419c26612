"""The segmenter as a task of the shared training harness (`g2w.train.TrainTask`).

The task is plain Python (no Ray): the harness (`g2w.runtime.train.run_fit`, Ray Train glue in
`g2w/runtime/train.py`) calls it on each Ray Train worker. Data is every pair folder that `--data`
names: synthesis outputs, real HUD/clean captures (`g2w capture`'s corpus or single case folders),
or both; validation uses separate pairs (`--val`): synthesized from other clips with another asset
library, and captures of other demos, so their widgets and backgrounds were never trained on. Training
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
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from g2w.models.hud_segmenter import WEIGHTS_NAME, HudSegmenter, HudSegmenterConfig
from g2w.segment.data import cached_sample, frame_input, random_item
from g2w.segment.losses import segmenter_loss, static_world
from g2w.segment.metrics import SegmentationScore
from g2w.segment.overlay import overlay
from g2w.segment.predict import FramePrediction, instances
from g2w.train_task import TrainTask, cpu_copy

VAL_FRAMES_PER_SAMPLE = 6
OVERLAY_SAMPLES = 6


PAIR_FILES = ("hud.mp4", "mask.mkv", "annotation.json")


def _is_pair(folder: str) -> bool:
    return all(os.path.isfile(os.path.join(folder, name)) for name in PAIR_FILES)


def sample_dirs(outputs: list[str]) -> list[str]:
    """Every finished pair folder (hud.mp4, mask.mkv, annotation.json) named by `outputs`.

    Each entry is a synthesis output (its `samples/*` with record.json, i.e. finished), a real
    capture corpus (its `cases/*` with meta.json; `g2w capture` writes that last), or one pair
    folder itself (a synthesized sample or a captured case, e.g. from a shell glob).
    """
    found = []
    for out in outputs:
        if _is_pair(out):
            found.append(os.path.normpath(out))
            continue
        for pattern in (os.path.join(out, "samples", "*", "record.json"), os.path.join(out, "cases", "*", "meta.json")):
            found += sorted(os.path.dirname(p) for p in glob.glob(pattern) if _is_pair(os.path.dirname(p)))
    return found


def source_group(sample_dir: str) -> str:
    """Which kind of footage a pair is, for per-group validation: `real:<game>` for a captured
    case (its meta.json names the game), `synthesized` for a synthesis sample."""
    meta = os.path.join(sample_dir, "meta.json")
    if os.path.isfile(meta):
        with open(meta) as f:
            return f"real:{json.load(f).get('game', 'unknown')}"
    return "synthesized"


def generator_rng(generator: torch.Generator) -> np.random.Generator:
    """A numpy RNG seeded deterministically from the harness's torch generator (advancing it)."""
    seed = torch.randint(0, 2**62, (1,), generator=generator, device=generator.device)
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
    init: str | None = None  # warm start: a segmenter folder whose weights (and config) the run starts from
    element_weight: float = 0.0  # the per-element loss term (`g2w.segment.losses.element_recall_loss`)
    static_world_weight: float = 0.0  # the static-world hard negative (`g2w.segment.losses.static_world_loss`)
    anchored_negatives: float = 0.0  # share of examples with a screen-anchored world object (`g2w.segment.anchored`)

    name = "hud-segmenter"

    @property
    def config(self) -> HudSegmenterConfig:
        return HudSegmenterConfig.from_dict(self.model)

    def build_model(self, device: torch.device | str = "cpu") -> HudSegmenter:
        torch.manual_seed(self.seed)
        model = HudSegmenter(self.config)
        if self.init:  # strict: the folder's config must be this task's (run_train_segmenter copies it)
            from safetensors.torch import load_file

            model.load_state_dict(with_text_plane(load_file(os.path.join(self.init, WEIGHTS_NAME)), model))
        return model.to(device)

    def train_samples(self) -> list[dict]:
        """Decode (or read from the cache) the training samples, once per worker."""
        if getattr(self, "_train", None) is None:
            dirs = sample_dirs(self.data)
            if not dirs:
                raise ValueError(f"no synthesized samples under {self.data}")
            crfs = [
                self.crfs[int(np.random.default_rng([self.seed, i]).integers(len(self.crfs)))] for i in range(len(dirs))
            ]
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
        items = [
            random_item(
                [samples[int(i)]],
                self.config,
                self.crop,
                rng,
                self.jitter,
                anchored=self.anchored_negatives,
                donors=samples,
            )
            for i in indices
        ]
        return tuple(torch.stack(parts).to(device) for parts in zip(*items))

    def loss(self, model: torch.nn.Module, batch: dict, generator: torch.Generator) -> torch.Tensor:
        device = next(model.parameters()).device
        x, ui, labels = self.examples(batch["index"].tolist(), generator_rng(generator), device)
        ui_logits, label_logits = model(x)
        planes = x[:, int(self.config.text_channel) :]  # static_world reads the frame planes only
        static = static_world(planes, ui, self.config.stack) if self.static_world_weight > 0 else None
        loss, _ = segmenter_loss(
            ui_logits,
            label_logits,
            ui,
            labels,
            element_weight=self.element_weight,
            static_weight=self.static_world_weight,
            static=static,
        )
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
        """Metrics over evenly spaced frames of every validation sample, at model resolution:
        all held-out pairs together, and per `source_group` under `by_source` (so held-out real
        footage and held-out synthesized pairs are reported apart)."""
        was_training = model.training
        model.eval()
        overall, groups, counts = SegmentationScore(), {}, Counter()
        for d in sample_dirs(self.val):
            sample = cached_sample(d, self.config, self.cache_dir)
            with open(os.path.join(d, "annotation.json")) as f:
                annotation = json.load(f)
            group = groups.setdefault(source_group(d), SegmentationScore())
            counts[source_group(d)] += 1
            n = len(sample["frames"])
            for t in np.linspace(0, n - 1, VAL_FRAMES_PER_SAMPLE).round().astype(int):
                pred = predict_frame(model, frame_input(sample, int(t), self.config), int(t))
                truth, labels = sample["ui"][t] > 0, sample["labels"][t]
                h, w = truth.shape
                found, true_boxes = instances(pred, w, h), annotation_boxes(annotation, int(t), w, h)
                for score in (overall, group):
                    score.add_pixels(pred.ui >= 0.5, truth, pred.label_map(), labels)
                    score.add_boxes((d, int(t)), found, true_boxes)
        model.train(was_training)
        result = overall.result()
        result["by_source"] = {
            name: {**score.result(), "samples": counts[name]} for name, score in sorted(groups.items())
        }
        return result

    @torch.inference_mode()
    def overlays(self, model: HudSegmenter, path: str) -> str:
        """Held-out frames, truth and prediction side by side, as one PNG at `path`."""
        from g2w.io.html_page import contact_sheet, save_png

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
        cpu = cpu_copy(model, HudSegmenter(self.config))
        os.makedirs(out_dir, exist_ok=True)
        result = self.metrics(cpu)
        with open(os.path.join(out_dir, "metrics.json"), "w") as f:
            json.dump(result, f, indent=2)
        self.overlays(cpu, os.path.join(out_dir, "overlays.png"))
        return [
            {
                "label": "held-out frames: truth (left) and prediction (right)",
                "image_overlays": "validation/overlays.png",
                **{k: v for k, v in result.items() if not isinstance(v, dict)},
            }
        ]


def with_text_plane(state: dict, model: HudSegmenter) -> dict:
    """`state` (a checkpoint without the text channel) made loadable into `model` when `model` has
    it: the stem convolution gets a zero input plane in front, so the warm-started network computes
    exactly what the checkpoint did until training gives the text plane a weight. Any other
    mismatch is left for the strict load to report."""
    key = "stem.0.weight"
    want = model.state_dict()[key].shape
    have = state[key].shape
    if model.config.text_channel and have[1] + 1 == want[1] and have[0] == want[0]:
        state = dict(state)
        state[key] = torch.cat([torch.zeros_like(state[key][:, :1]), state[key]], 1)
    return state


def predict_frame(model: HudSegmenter, x: np.ndarray, index: int) -> FramePrediction:
    ui, labels = model(torch.from_numpy(x)[None])
    return FramePrediction(index, torch.sigmoid(ui[0, 0]).numpy(), torch.softmax(labels[0], 0).numpy())


def annotation_boxes(annotation: dict, t: int, width: int, height: int) -> list[tuple[str, list[int]]]:
    """Ground-truth boxes of frame t at `width` x `height`: the annotation's own instance boxes
    (what `g2w evaluate` scores), scaled outwards to whole pixels.

    Until this checkpoint they were the connected regions of each label's UI pixels, which cut a
    captured text HUD (its mask is the glyphs themselves) into one box per glyph, so no widget-
    sized prediction could match one at IoU 0.5 (FreeDM box AP50 0.002).
    """
    sx, sy = width / annotation["width"], height / annotation["height"]
    label_of = {inst["id"]: inst["label"] for inst in annotation["instances"]}
    out = []
    for rec in annotation["frames"]:
        if rec["frame"] != t:
            continue
        for obj in rec["objects"]:
            x1, y1, x2, y2 = obj["box"]
            box = [
                int(np.floor(x1 * sx)),
                int(np.floor(y1 * sy)),
                min(width, int(np.ceil(x2 * sx))),
                min(height, int(np.ceil(y2 * sy))),
            ]
            if box[2] > box[0] and box[3] > box[1]:
                out.append((label_of[obj["id"]], box))
    return out


def write_metrics(run_dir: str, metrics: dict) -> str:
    path = os.path.join(run_dir, "metrics.json")
    with open(path, "w") as f:
        json.dump(metrics, f, indent=2)
    return path
