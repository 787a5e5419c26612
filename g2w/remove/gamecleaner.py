"""GameCleaner as a removal method: mask-free, with an optional clean reference frame.

`gamecleaner(case, out_path, checkpoint=RUN, reference="none"|"self"|"oracle", reference_image=None, reference_edits=None, steps=None, sampler="euler", attention=None, compile=False, ...)`
resamples the source to the model's rate and cuts it into windows of the model's frames (81 at
16 fps for the real presets: one window covers a 5 s clip; the tiny preset's 17 need several)
that overlap by a quarter and are cross-faded (`windows`), encodes each, samples its clean latent
(`samplers`; no CFG) and writes the decoded frames resized back to the source's size, at the
source's rate and frame count, each source frame showing the model frame nearest its time. The
reference comes from what a user has (`gamecleaner_reference`): none, their own image, or a frame
built from the source by the default CPU removal (or taken from that removal's existing edit of
the same source, in `reference_edits`); `oracle` (the ground-truth clean
frame) exists for synthetic upper bounds only and is recorded as such. `checkpoint` is a training
run folder (its `weights.safetensors`) or a weights file. The model loads once per worker process
and is reused across cases; `attention` (a diffusers attention backend) and `compile` (regional
torch.compile of the DiT blocks, see `speed`) are part of what identifies the loaded model, so a
case asking for other ones loads it again rather than running the previous settings.
"""

from __future__ import annotations

import functools
import math
import os

import torch

from g2w.cases.case import Case
from g2w.remove import MethodInputError
from g2w.remove.gamecleaner_reference import (
    image_path,
    read_reference_image,
    reference_source,
    reference_video,
)
from g2w.video import VideoWriter, probe


@functools.lru_cache(maxsize=1)
def _loaded(
    weights: str,
    base_dir: str | None,
    mllm_dir: str | None,
    device: str,
    seed: int,
    attention: str | None = None,
    compile: bool = False,
):
    from g2w.models.gamecleaner.encoders import Encoders
    from g2w.models.gamecleaner.model import base_dtype, load_gamecleaner
    from g2w.models.gamecleaner.speed import apply_speed

    model = load_gamecleaner(weights, base_dir=base_dir, seed=seed, dtype=base_dtype(device)).to(device).eval()
    apply_speed(model.dit.transformer, attention, compile, device)
    return model, Encoders(model.config, base_dir, mllm_dir, device, seed)


def weights_path(checkpoint: str) -> str:
    path = os.path.join(checkpoint, "weights.safetensors") if os.path.isdir(checkpoint) else checkpoint
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no GameCleaner weights (give a training run folder or a .safetensors file)")
    return path


def gamecleaner(
    case: Case,
    out_path: str,
    checkpoint: str,
    reference: str | None = None,
    reference_image: str | None = None,
    reference_edits: str | None = None,
    steps: int | None = None,
    sampler: str = "euler",
    attention: str | None = None,
    compile: bool = False,
    base_dir: str | None = None,
    mllm_dir: str | None = None,
    seed: int = 0,
    progress=None,
) -> int:
    from g2w.models.gamecleaner.clips import clip_frames, resize_frames
    from g2w.models.gamecleaner.samplers import FEW_STEPS, sample
    from g2w.remove.windows import Blender, source_frame_map, window_starts

    if steps is None:  # each sampler's usual step count
        steps = 50 if sampler == "euler" else FEW_STEPS

    source_kind = reference_source(reference, reference_image, reference_edits)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if attention is not None:  # a backend this worker's device cannot run: an error row, before the model loads
        from g2w.models.gamecleaner.speed import check_attention

        try:
            check_attention(attention, device)
        except ValueError as exc:
            raise MethodInputError("attention_unavailable", str(exc)) from exc
    model, enc = _loaded(weights_path(checkpoint), base_dir, mllm_dir, device, seed, attention, compile)
    cfg = model.config
    info = probe(case.source)
    source_s = info.frame_count / info.fps
    total = max(1, math.ceil(source_s * cfg.fps - 1e-6))  # model frames covering the source
    starts = window_starts(total, cfg.frames, cfg.frames // 4)  # neighbours share a quarter of a window
    blender = Blender(starts, cfg.frames, total)
    shown = source_frame_map(info.frame_count, info.fps, cfg.fps, total)
    dtype = torch.float32  # inputs and the connector stay fp32; the DiT's bf16 base runs under autocast
    generator = torch.Generator(device).manual_seed(seed)
    user_frame = None
    if source_kind == "image":  # read before any work, so a bad image costs nothing
        user_frame = read_reference_image(
            image_path(reference_image, case.case_id), cfg.width, cfg.height, info.width / info.height
        )

    def dit(z, t, c, s, r):
        if progress:  # each sampling step is a point where a canceled job can stop
            progress(0)
        return model(z, t, s, r, context=c)

    w, h = info.width - info.width % 2, info.height - info.height % 2
    written = 0
    with (
        reference_video(case, source_kind, progress and (lambda: progress(0)), reference_edits) as ref_video,
        VideoWriter(out_path, w, h, info.fps) as writer,
    ):
        for k, start in enumerate(starts):
            start_s = start / cfg.fps
            source = clip_frames(case.source, cfg, start_s=start_s)
            src = enc.encode(source)
            frame = user_frame if ref_video is None else clip_frames(ref_video, cfg, start_s=start_s)[:1]
            ref = None if frame is None else enc.encode(frame).to(dtype)
            context = model.context(enc.mllm_states(source, model.condition.queries).to(dtype))
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=device == "cuda"):
                latent = sample(dit, context, src.to(dtype), ref, sampler, steps, generator=generator)
            for index, out in blender.add(k, resize_frames(enc.decode(latent), w, h)):
                while written < len(shown) and shown[written] == index:  # the source frames it stands for
                    writer.write(out)
                    written += 1
                if progress:
                    progress(written)
    return written
