"""GameCleaner as a removal method: mask-free, with an optional clean reference frame.

`gamecleaner(case, out_path, checkpoint=RUN, reference="first-clean-frame"|"none", steps=50, ...)`
resamples the source to the model's frames and rate (81 at 16 fps for the real presets), encodes
it, samples the clean latent with the Euler flow sampler (no CFG) and writes the decoded frames
at the model's rate, resized back to the source's size: the edit shape that the evaluation's
timestamp alignment expects. `checkpoint` is a training run folder (its `weights.safetensors`) or
a weights file. The model loads once per worker process and is reused across cases.
"""

from __future__ import annotations

import functools
import os

import torch

from g2w.evaluate.cases import Case
from g2w.video import VideoWriter, probe

REFERENCES = ("first-clean-frame", "none")


@functools.lru_cache(maxsize=1)
def _loaded(weights: str, base_dir: str | None, mllm_dir: str | None, device: str, seed: int):
    from g2w.models.gamecleaner.encoders import Encoders
    from g2w.models.gamecleaner.model import load_gamecleaner

    model = load_gamecleaner(weights, base_dir=base_dir, seed=seed).to(device).eval()
    if device == "cuda":
        model = model.to(torch.bfloat16)
    return model, Encoders(model.config, base_dir, mllm_dir, device, seed)


def weights_path(checkpoint: str) -> str:
    path = os.path.join(checkpoint, "weights.safetensors") if os.path.isdir(checkpoint) else checkpoint
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no GameCleaner weights (give a training run folder or a .safetensors file)")
    return path


def gamecleaner(case: Case, out_path: str, checkpoint: str, reference: str = "first-clean-frame", steps: int = 50,
                base_dir: str | None = None, mllm_dir: str | None = None, seed: int = 0) -> int:
    from g2w.models.gamecleaner import flow
    from g2w.models.gamecleaner.clips import clip_frames, resize_frames

    if reference not in REFERENCES:
        raise ValueError(f"reference {reference!r}: use one of {REFERENCES}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model, enc = _loaded(weights_path(checkpoint), base_dir, mllm_dir, device, seed)
    cfg = model.config
    source = clip_frames(case.source, cfg)
    src = enc.encode(source)
    ref = None
    if reference == "first-clean-frame" and case.reference and os.path.exists(case.reference):
        ref = enc.encode(clip_frames(case.reference, cfg)[:1])
    dtype = next(model.parameters()).dtype
    context = model.context(enc.mllm_states(source, model.condition.queries).to(dtype))
    generator = torch.Generator(device).manual_seed(seed)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
        latent = flow.euler_sample(lambda z, t, c, s, r: model(z, t, s, r, context=c), context, src.to(dtype),
                                   None if ref is None else ref.to(dtype), steps=steps, generator=generator)
    info = probe(case.source)
    w, h = info.width - info.width % 2, info.height - info.height % 2
    frames = resize_frames(enc.decode(latent), w, h)
    with VideoWriter(out_path, w, h, cfg.fps) as writer:
        for frame in frames:
            writer.write(frame)
    return len(frames)
