"""Training data from synthesis outputs: `hud.mp4`, `mask.mkv` and `annotation.json` per sample.

A sample is decoded once at the model's resolution, optionally after a round trip through
libx264 at a chosen CRF (real footage arrives at many qualities), and cached as `.npz`:
frames (T, h, w, 3) uint8, the UI target (T, h, w) 0/1 from the lossless mask, and a label map
(T, h, w) int8 that gives each UI pixel the taxonomy label of the smallest annotated box
covering it (-1 where there is no UI). `random_item` then cuts augmented training crops
(scale, aspect, brightness, contrast, blur, and optionally a screen-anchored world object as a
hard negative) from cached samples.
"""

from __future__ import annotations

import json
import os
import tempfile

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from g2w.models.hud_segmenter import HudSegmenterConfig
from g2w.segment.anchored import anchored_input
from g2w.segment.inputs import assemble, model_size, stack_indices, window_stats
from g2w.taxonomy import LABELS
from g2w.video import VideoWriter, iter_frames, iter_masks, probe

LABEL_INDEX = {label: k for k, label in enumerate(LABELS)}
IGNORE = -1


def _label_maps(annotation: dict, size: tuple[int, int], frames: int) -> np.ndarray:
    """(T, h, w) int8 label per pixel from the annotation's boxes (smallest box on top)."""
    w, h = size
    sx, sy = w / annotation["width"], h / annotation["height"]
    label_of = {inst["id"]: LABEL_INDEX[inst["label"]] for inst in annotation["instances"]}
    out = np.full((frames, h, w), IGNORE, np.int8)
    for rec in annotation["frames"]:
        t = rec["frame"]
        if t >= frames:
            continue
        objects = sorted(rec["objects"], key=lambda o: -(o["box"][2] - o["box"][0]) * (o["box"][3] - o["box"][1]))
        for obj in objects:
            x1, y1, x2, y2 = obj["box"]
            out[
                t,
                int(y1 * sy) : max(int(y1 * sy) + 1, round(y2 * sy)),
                int(x1 * sx) : max(int(x1 * sx) + 1, round(x2 * sx)),
            ] = label_of[obj["id"]]
    return out


def _reencode(frames: np.ndarray, fps: float, crf: int) -> np.ndarray:
    """Frames after a libx264 round trip at `crf` (even size: the last row/column is kept as is)."""
    t, h, w, _ = frames.shape
    he, we = h - h % 2, w - w % 2
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "crf.mp4")
        with VideoWriter(path, we, he, fps, crf=crf, preset="ultrafast") as writer:
            for frame in frames:
                writer.write(np.ascontiguousarray(frame[:he, :we]))
        out = frames.copy()
        for k, decoded in enumerate(iter_frames(path)):
            out[k, :he, :we] = decoded.rgb
    return out


def load_sample(sample_dir: str, config: HudSegmenterConfig, crf: int | None = None) -> dict:
    """One synthesized sample at model resolution: frames, UI target and label map."""
    video = os.path.join(sample_dir, "hud.mp4")
    info = probe(video)
    w, h = model_size(info.width, info.height, config.input_long_side)
    frames = np.stack([f.rgb for f in iter_frames(video, width=w, height=h)])
    masks = np.stack(
        [cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA) for m in iter_masks(os.path.join(sample_dir, "mask.mkv"))]
    )
    n = min(len(frames), len(masks))
    frames, ui = frames[:n], (masks[:n] >= 128).astype(np.uint8)
    if crf is not None:
        frames = _reencode(frames, info.fps or 30.0, crf)
    with open(os.path.join(sample_dir, "annotation.json")) as f:
        labels = _label_maps(json.load(f), (w, h), n)
    labels[ui == 0] = IGNORE
    sample = {"frames": frames, "ui": ui, "labels": labels}
    if config.text_channel:
        sample["text"] = text_maps(video, config, (w, h), n)
    return sample


def text_maps(video: str, config: HudSegmenterConfig, size: tuple[int, int], n: int) -> np.ndarray:
    """(n, h, w) uint8 text-proposal maps (0..255) of a video's first n frames, the detector run on
    the source frames (before any CRF round trip) at `config.text_long_side`, every
    `config.text_every` frames, as detection runs it."""
    from g2w.segment.text_proposals import TextDetector, TextProposals

    info = probe(video)
    detector = TextDetector(long_side=config.text_long_side)
    dw, dh = detector.size_for(info.width, info.height)
    proposals = TextProposals(size, config.text_every, detector)
    out = np.zeros((n, size[1], size[0]), np.uint8)
    for t, frame in enumerate(iter_frames(video, width=dw, height=dh)):
        if t >= n:
            break
        out[t] = np.clip(proposals.step(t, frame.rgb if proposals.due(t) else None) * 255 + 0.5, 0, 255)
    return out


def cached_sample(sample_dir: str, config: HudSegmenterConfig, cache_dir: str, crf: int | None = None) -> dict:
    """`load_sample`, cached as .npz under `cache_dir` (keyed by sample, size and CRF)."""
    text = f"_text{config.text_every}x{config.text_long_side}" if config.text_channel else ""
    name = f"{os.path.basename(os.path.normpath(sample_dir))}_{config.input_long_side}_crf{crf}{text}.npz"
    path = os.path.join(cache_dir, name)
    if os.path.exists(path):
        with np.load(path) as data:
            return dict(data)
    sample = load_sample(sample_dir, config, crf)
    os.makedirs(cache_dir, exist_ok=True)
    tmp = path + ".partial.npz"
    np.savez(tmp, **sample)
    os.replace(tmp, path)
    return sample


def frame_input(sample: dict, t: int, config: HudSegmenterConfig) -> np.ndarray:
    """The network input for frame t of a cached sample, exactly as detection builds it."""
    frames = sample["frames"]
    start = t - t % config.span
    stats = sample.setdefault("stats", {})  # one median per window, reused by its frames
    if start not in stats:
        stats[start] = window_stats(frames[start : start + config.span])
    median, spread = stats[start]
    return assemble(
        [frames[i] for i in stack_indices(t, len(frames), config)], median, spread, text_plane(sample, t, config)
    )


def text_plane(sample: dict, t: int, config: HudSegmenterConfig) -> np.ndarray | None:
    """Frame t's text-proposal map (h, w) float32 0..1 when the config has the text channel."""
    if not config.text_channel:
        return None
    return sample["text"][t].astype(np.float32) * np.float32(1 / 255)


def rescale(
    x: torch.Tensor, ui: torch.Tensor, labels: torch.Tensor, size: tuple[int, int]
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Input (bilinear) and targets (nearest) scaled to `size` (h, w), sampled at the same points.

    Targets use "nearest-exact", which samples at pixel centres as bilinear with
    align_corners=False does; plain "nearest" takes floor(i * scale) and shifts the targets by
    up to half a source pixel against the input (thin strokes then train on a misplaced mask).
    """
    x = F.interpolate(x[None], size=size, mode="bilinear", align_corners=False)[0]
    ui = F.interpolate(ui[None, None], size=size, mode="nearest-exact")[0, 0]
    labels = F.interpolate(labels[None, None].float(), size=size, mode="nearest-exact")[0, 0].long()
    return x, ui, labels


def augment(
    x: torch.Tensor,
    ui: torch.Tensor,
    labels: torch.Tensor,
    crop: int,
    rng: np.random.Generator,
    jitter: bool = True,
    leading: int = 0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Scale and aspect jitter, a random crop of `crop` x `crop`, brightness/contrast and blur
    (`jitter=False`: the crop alone).

    x (C, h, w) float; ui (h, w) float 0/1; labels (h, w) long. Colour changes touch the RGB
    planes (stack and median) alike and scale the spread plane by the contrast; the first
    `leading` planes (the text-proposal map) are scaled, cropped and blurred but keep their values.
    """
    sx, sy = np.exp(rng.uniform(np.log(0.6), np.log(1.6), 2)) if jitter else (1.0, 1.0)
    h, w = x.shape[-2:]
    size = (max(8, round(h * sy)), max(8, round(w * sx)))
    x, ui, labels = rescale(x, ui, labels, size)
    pad_h, pad_w = max(0, crop - size[0]), max(0, crop - size[1])
    if pad_h or pad_w:
        x = F.pad(x, (0, pad_w, 0, pad_h), mode="replicate")
        ui = F.pad(ui, (0, pad_w, 0, pad_h))
        labels = F.pad(labels, (0, pad_w, 0, pad_h), value=IGNORE)
    y0 = int(rng.integers(0, x.shape[-2] - crop + 1))
    x0 = int(rng.integers(0, x.shape[-1] - crop + 1))
    x, ui, labels = (a[..., y0 : y0 + crop, x0 : x0 + crop] for a in (x, ui, labels))
    if not jitter:
        return x.contiguous(), ui.contiguous(), labels.contiguous()
    contrast, brightness = rng.uniform(0.6, 1.4), rng.uniform(-0.15, 0.15)
    rgb = x[leading:-1] * contrast + brightness
    spread = x[-1:] * contrast
    x = torch.cat([x[:leading], rgb, spread]).clamp(0, 1)
    if rng.random() < 0.3:
        sigma = rng.uniform(0.4, 1.2)
        k = torch.exp(-(torch.arange(-2, 3, dtype=x.dtype) ** 2) / (2 * sigma**2))
        k = k / k.sum()
        c = x.shape[0]
        x = F.conv2d(F.pad(x[None], (2, 2, 0, 0), mode="replicate"), k.view(1, 1, 1, 5).repeat(c, 1, 1, 1), groups=c)
        x = F.conv2d(F.pad(x, (0, 0, 2, 2), mode="replicate"), k.view(1, 1, 5, 1).repeat(c, 1, 1, 1), groups=c)[0]
    return x.contiguous(), ui.contiguous(), labels.contiguous()


def random_item(
    samples: list[dict],
    config: HudSegmenterConfig,
    crop: int,
    rng: np.random.Generator,
    jitter: bool = True,
    anchored: float = 0.0,
    donors: list[dict] | None = None,
):
    """One augmented training example (input, UI target, label target) from a random sample and frame.

    `anchored`: the share of examples that get a screen-anchored world object (`g2w.segment.anchored`)
    textured from `donors` (default `samples`); 0 draws exactly what earlier runs drew."""
    sample = samples[int(rng.integers(len(samples)))]
    t = int(rng.integers(len(sample["frames"])))
    if anchored > 0 and rng.random() < anchored:
        x = anchored_input(sample, t, config, donors or samples, rng)
        text = text_plane(sample, t, config)
        if text is not None:
            x = np.concatenate([text[None], x])
        x = torch.from_numpy(x)
    else:
        x = torch.from_numpy(frame_input(sample, t, config))
    ui = torch.from_numpy(sample["ui"][t].astype(np.float32))
    labels = torch.from_numpy(sample["labels"][t].astype(np.int64))
    return augment(x, ui, labels, crop, rng, jitter, leading=int(config.text_channel))
