"""GameCleaner as a removal method: mask-free, with an optional clean reference frame.

`gamecleaner(case, out_path, checkpoint=RUN, reference="first-clean-frame"|"none", steps=50, ...)`
resamples the source to the model's rate and cuts it into consecutive windows of the model's
frames (81 at 16 fps for the real presets: one window covers a 5 s clip; the tiny preset's 17
need several), encodes each, samples its clean latent with the Euler flow sampler (no CFG) and
writes the decoded frames at the model's rate, resized back to the source's size, until the
whole source is covered: the edit shape that the evaluation's timestamp alignment expects. With
`first-clean-frame`, each window gets the clean frame at its own start as its reference. `checkpoint` is a training run folder (its `weights.safetensors`) or
a weights file. The model loads once per worker process and is reused across cases.
"""

from __future__ import annotations

import functools
import math
import os

import torch

from g2w.cases.case import Case
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
                base_dir: str | None = None, mllm_dir: str | None = None, seed: int = 0, progress=None) -> int:
    from g2w.models.gamecleaner import flow
    from g2w.models.gamecleaner.clips import clip_frames, resize_frames

    if reference not in REFERENCES:
        raise ValueError(f"reference {reference!r}: use one of {REFERENCES}")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model, enc = _loaded(weights_path(checkpoint), base_dir, mllm_dir, device, seed)
    cfg = model.config
    info = probe(case.source)
    span_s = cfg.frames / cfg.fps
    source_s = info.frame_count / info.fps
    windows = max(1, math.ceil(source_s / span_s - 1e-6))
    total = max(cfg.frames, math.ceil(source_s * cfg.fps - 1e-6))
    use_reference = reference == "first-clean-frame" and case.reference and os.path.exists(case.reference)
    dtype = next(model.parameters()).dtype
    generator = torch.Generator(device).manual_seed(seed)

    def dit(z, t, c, s, r):
        if progress:  # each sampling step is a point where a canceled job can stop
            progress(0)
        return model(z, t, s, r, context=c)

    w, h = info.width - info.width % 2, info.height - info.height % 2
    written = 0
    with VideoWriter(out_path, w, h, cfg.fps) as writer:
        for k in range(windows):
            source = clip_frames(case.source, cfg, start_s=k * span_s)
            src = enc.encode(source)
            ref = enc.encode(clip_frames(case.reference, cfg, start_s=k * span_s)[:1]) if use_reference else None
            context = model.context(enc.mllm_states(source, model.condition.queries).to(dtype))
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
                latent = flow.euler_sample(dit, context, src.to(dtype), None if ref is None else ref.to(dtype),
                                           steps=steps, generator=generator)
            for frame in resize_frames(enc.decode(latent), w, h)[:total - written]:
                writer.write(frame)
                written += 1
                if progress:
                    progress(written)
    return written
