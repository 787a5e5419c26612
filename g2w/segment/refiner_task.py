"""Training the full-resolution refiner (`g2w.segment.fullres`) as a task of the shared harness.

The segmenter checkpoint named by `checkpoint` is frozen: each pair (`hud.mp4`, `mask.mkv`) is
run through it once, as `Segmenter.frames` runs it, and for `frames_per_pair` evenly spaced
frames the candidate tiles with their evidence crops (upsampled probability, luma, the window's
median and spread) and the full-size truth mask on them are cached (`pair_tiles`). One training
example is one pair: `tiles_per_example` candidate tiles of one of its frames, drawn (with a
random horizontal flip) from a numpy RNG seeded by the harness's generator. The loss is binary
cross-entropy of the refined logit against the full-size mask. Validation scores the full-size
mask IoU of the plain upsampled mask and of the refined one on held-out pairs, overall and per
source (`synthesized`, `real:<game>`), counting truth outside the candidate tiles as missed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from g2w.models.hud_segmenter import FullResRefiner, FullResRefinerConfig
from g2w.segment.fullres import (
    candidate_tiles,
    crop_tiles,
    evidence,
    frame_luma,
    pad_to_tiles,
    refine_tiles,
    tile_statistics,
    upsampled_probability,
    window_top,
)
from g2w.segment.metrics import SegmentationScore
from g2w.segment.task import generator_rng, sample_dirs, source_group
from g2w.train_task import TrainTask, cpu_copy

FRAMES_PER_PAIR = 6
CACHE_MARGIN = 8  # context cached around each tile: enough for any refiner whose dilations sum to <= 8
CROPS = ("q", "y", "med", "spread", "top")


def pair_tiles(pair: str, segmenter, config: FullResRefinerConfig, frames: int = FRAMES_PER_PAIR) -> dict:
    """Candidate tiles of `frames` evenly spaced frames of one pair, with evidence and truth.

    Keys per sampled frame t: `{t}_tiles` (K, 2), `{t}_q`, `{t}_y`, `{t}_med`, `{t}_spread`,
    `{t}_top` (the window's maximum probability) (K, S, S) uint8 crops (S = tile + 2 CACHE_MARGIN), `{t}_truth` (K, tile, tile) bool, and
    `{t}_inside` (K, tile, tile) bool (False past the frame's edge), and `{t}_truth_total` (UI
    pixels in the whole frame); `ts` lists the frames.
    """
    from g2w.video import iter_masks, probe
    from g2w.video.decode import iter_video_frames

    src = os.path.join(pair, "hud.mp4")
    info = probe(src)
    uis = [p.ui for p in segmenter.frames(src)]
    masks = iter_masks(os.path.join(pair, "mask.mkv"))
    n = len(uis)
    span, tile, m = segmenter.config.span, config.tile, CACHE_MARGIN
    ts = sorted(set(np.linspace(0, n - 1, frames).round().astype(int).tolist()))
    windows = {t // span for t in ts}
    lumas = {}
    for k, (_, _, frame) in enumerate(iter_video_frames(src)):
        if k >= n:
            break
        if k // span in windows:
            lumas[k] = frame_luma(frame)
    truth = {k: mask >= 128 for k, mask in enumerate(masks) if k in ts}
    out = {"ts": np.array(ts)}
    level = int(np.ceil(config.low * 255))
    for w in sorted(windows):
        ks = [k for k in range(w * span, min(n, (w + 1) * span))]
        qs = {k: upsampled_probability(uis[k], info.width, info.height) for k in ks}
        top = window_top(list(qs.values()))
        tiles = candidate_tiles(list(qs.values()), tile, level, top)
        crops = {k: crop_tiles(pad_to_tiles(lumas[k], tile, m), tiles, tile, m) for k in ks}
        median, spread = tile_statistics(list(crops.values())) if len(tiles) else (None, None)
        for t in ts:
            if t // span != w or t not in truth:
                continue
            out[f"{t}_tiles"] = tiles
            out[f"{t}_truth_total"] = np.int64(truth[t].sum())
            if len(tiles):
                out[f"{t}_q"] = crop_tiles(pad_to_tiles(qs[t], tile, m), tiles, tile, m)
                out[f"{t}_y"], out[f"{t}_med"], out[f"{t}_spread"] = crops[t], median, spread
                out[f"{t}_top"] = crop_tiles(pad_to_tiles(top, tile, m), tiles, tile, m)
                out[f"{t}_truth"] = crop_tiles(pad_to_tiles(truth[t].view(np.uint8), tile, 0), tiles, tile, 0) > 0
                inside = np.ones((info.height, info.width), np.uint8)  # tiles reach past the frame's edge
                inside = np.pad(inside, ((0, (-info.height) % tile), (0, (-info.width) % tile)))
                out[f"{t}_inside"] = crop_tiles(inside, tiles, tile, 0) > 0
    return out


def cached_pair_tiles(pair: str, segmenter, config: FullResRefinerConfig, cache_dir: str) -> dict:
    """`pair_tiles`, cached as one .npz per (pair, segmenter checkpoint, tile and candidate level):
    the refiner's width and evidence choice do not change what is cached."""
    settings = {"format": 2, "tile": config.tile, "low": config.low}
    key = hashlib.sha1(json.dumps([os.path.abspath(pair), segmenter.checkpoint, settings]).encode()).hexdigest()[:12]
    path = os.path.join(cache_dir, f"{os.path.basename(os.path.normpath(pair))}_{key}.npz")
    if not os.path.exists(path):
        os.makedirs(cache_dir, exist_ok=True)
        data = pair_tiles(pair, segmenter, config)
        tmp = path + ".partial.npz"
        np.savez_compressed(tmp, **data)
        os.replace(tmp, path)
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def frame_records(data: dict, margin: int = CACHE_MARGIN) -> list[dict]:
    """One dict per cached frame: tiles, q, y, med, spread, top, truth, truth_total, inside; the
    crops trimmed to `margin` pixels around each tile (a refiner's `margin`)."""
    if margin > CACHE_MARGIN:
        raise ValueError(f"a refiner margin of {margin} px needs more than the {CACHE_MARGIN} px cached")
    cut = CACHE_MARGIN - margin
    out = []
    for t in data["ts"]:
        if f"{t}_tiles" not in data:
            continue
        rec = {k.split("_", 1)[1]: v for k, v in data.items() if k.startswith(f"{t}_")}
        for k in CROPS:
            if cut and k in rec:
                rec[k] = rec[k][:, cut:-cut, cut:-cut]
        out.append(rec)
    return out


@dataclass
class RefinerTask(TrainTask):
    data: list[str]
    val: list[str]
    cache_dir: str
    checkpoint: str  # the frozen segmenter whose masks are refined
    model: dict = field(default_factory=lambda: asdict(FullResRefinerConfig()))
    tiles_per_example: int = 8
    lr: float = 3e-3
    iou_weight: float = 0.0  # the loss: BCE + iou_weight x (1 - soft IoU of the batch's tiles)
    real_share: float = 0.0  # at least about this share of examples come from captured (real) pairs
    seed: int = 0

    name = "hud-refiner"

    @property
    def config(self) -> FullResRefinerConfig:
        return FullResRefinerConfig.from_dict(self.model)

    def build_model(self, device: torch.device | str = "cpu") -> FullResRefiner:
        torch.manual_seed(self.seed)
        return FullResRefiner(self.config).to(device)

    def _segmenter(self):
        from g2w.segment.predict import Segmenter

        return Segmenter(self.checkpoint, threads=1, full_res=False)

    def records(self, pairs: list[str]) -> list[list[dict]]:
        segmenter = self._segmenter()
        return [
            frame_records(cached_pair_tiles(d, segmenter, self.config, self.cache_dir), self.config.margin)
            for d in sample_dirs(pairs)
        ]

    def train_records(self) -> list[list[dict]]:
        """Per training pair, its cached frames that have candidate tiles (built once per worker)."""
        if getattr(self, "_train", None) is None:
            if not sample_dirs(self.data):
                raise ValueError(f"no pairs under {self.data}")
            self._train = [[r for r in recs if len(r["tiles"])] for recs in self.records(self.data)]
            self._real = [k for k, d in enumerate(sample_dirs(self.data)) if source_group(d).startswith("real")]
        return self._train

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_train"}

    def num_examples(self) -> int:
        return len(self.train_records())

    def load_batch(self, indices: Sequence[int], device: torch.device | str = "cpu") -> dict:
        return {"index": torch.as_tensor(list(indices), dtype=torch.int64)}

    def examples(self, indices: Sequence[int], rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
        """(evidence (N, 5, S, S), truth (N, 1, tile, tile)) for `tiles_per_example` tiles per index."""
        pairs = self.train_records()
        real = self._real
        xs, ys = [], []
        for i in indices:
            if real and self.real_share and rng.random() < self.real_share:
                i = real[int(rng.integers(len(real)))]
            frames = pairs[int(i)] or [r for p in pairs for r in p]  # a pair without candidates lends another's
            rec = frames[int(rng.integers(len(frames)))]
            pick = rng.integers(len(rec["tiles"]), size=self.tiles_per_example)
            x = evidence(
                rec["q"][pick],
                rec["y"][pick],
                rec["med"][pick],
                rec["spread"][pick],
                rec["top"][pick] if self.config.window_max else None,
            )
            y = torch.from_numpy(rec["truth"][pick]).float()[:, None]
            if rng.random() < 0.5:
                x, y = x.flip(-1), y.flip(-1)
            xs.append(x)
            ys.append(y)
        return torch.cat(xs), torch.cat(ys)

    def loss(self, model: torch.nn.Module, batch: dict, generator: torch.Generator) -> torch.Tensor:
        device = next(model.parameters()).device
        x, y = self.examples(batch["index"].tolist(), generator_rng(generator))
        return refiner_loss(model(x.to(device)), y.to(device), self.iou_weight)

    def save_weights(self, model: torch.nn.Module, path: str) -> None:
        from safetensors.torch import save_file

        save_file({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}, path)

    @torch.inference_mode()
    def metrics(self, model: FullResRefiner) -> dict:
        """Full-size mask IoU and F1 of the plain and the refined mask on the held-out pairs."""
        model.eval()
        plain, refined, groups = SegmentationScore(), SegmentationScore(), {}
        segmenter = self._segmenter()
        for d in sample_dirs(self.val):
            g = source_group(d)
            gp, gr = groups.setdefault(g, (SegmentationScore(), SegmentationScore()))
            for rec in frame_records(cached_pair_tiles(d, segmenter, self.config, self.cache_dir), model.margin):
                add_frame(model, rec, [plain, gp], [refined, gr])
        result = {
            "plain": _iou_f1(plain),
            "refined": _iou_f1(refined),
            "by_source": {g: {"plain": _iou_f1(p), "refined": _iou_f1(r)} for g, (p, r) in sorted(groups.items())},
        }
        return result

    def validate(self, model: torch.nn.Module, out_dir: str, device: torch.device | str = "cpu") -> list[dict]:
        cpu = cpu_copy(model, FullResRefiner(self.config))
        os.makedirs(out_dir, exist_ok=True)
        result = self.metrics(cpu)
        with open(os.path.join(out_dir, "metrics.json"), "w") as f:
            json.dump(result, f, indent=2)
        return [
            {
                "label": "held-out full-size mask IoU, plain / refined",
                "plain_iou": result["plain"]["mask_iou"],
                "refined_iou": result["refined"]["mask_iou"],
            }
        ]


def refiner_loss(logits: torch.Tensor, truth: torch.Tensor, iou_weight: float = 0.0) -> torch.Tensor:
    """Binary cross-entropy, plus `iou_weight` x (1 - soft IoU) pooled over the batch's pixels:
    the soft IoU counts a missed pixel and a false one alike, as the measured IoU does, so a
    batch's few UI pixels are not outweighed by its many world ones."""
    loss = F.binary_cross_entropy_with_logits(logits, truth)
    if iou_weight:
        p = torch.sigmoid(logits)
        inter = (p * truth).sum()
        union = p.sum() + truth.sum() - inter
        loss = loss + iou_weight * (1 - (inter + 1) / (union + 1))
    return loss


def add_frame(
    model: FullResRefiner, rec: dict, plain: list[SegmentationScore], refined: list[SegmentationScore]
) -> None:
    """Add one cached frame's pixel counts (`rec` trimmed to the model's margin); truth outside
    the candidate tiles is missed by both."""
    outside = int(rec["truth_total"]) - (int(rec["truth"].sum()) if len(rec["tiles"]) else 0)
    m = model.margin
    for scores, pred in ((plain, None), (refined, model)):
        for s in scores:
            s.fn += outside
        if not len(rec["tiles"]):
            continue
        if pred is None:
            found = rec["q"][:, m:-m, m:-m] >= 128
        else:
            found = refine_tiles(pred, rec["q"], rec["y"], rec["med"], rec["spread"], rec.get("top")) >= 0
        inside = rec["inside"]
        for s in scores:
            s.add_pixels(found[inside], rec["truth"][inside])


def _iou_f1(score: SegmentationScore) -> dict:
    tp, fp, fn = score.tp, score.fp, score.fn
    return {
        "mask_iou": round(tp / max(1, tp + fp + fn), 4),
        "pixel_f1": round(2 * tp / max(1, 2 * tp + fp + fn), 4),
        "tp": int(tp),
        "fp": int(fp),
        "fn": int(fn),
    }
