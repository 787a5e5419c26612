"""Rendering one sample: clean clip in, paired clean/HUD videos, mask, annotation and record out.

`render_sample` probes the clip, plans the sample (its record), then streams the clip once:
each decoded frame is composited with the record's layers, measured for the annotation, and
written to `clean.mp4`, `hud.mp4` (same encoder settings, so codec noise is alike) and
`mask.mkv` (FFV1, lossless). Frames stay in the decoder's own I420 planes throughout: clean.mp4
is encoded from them as decoded, and the HUD is blended into a copy of them inside its boxes
only (`composite_yuv.py`), so no frame is converted to RGB and back; both outputs carry the
clip's matrix (BT.709 tagged when the clip is). Clips in other formats (full range, 4:4:4,
10-bit, odd sizes) are converted to I420 once, on decode. Decoding runs ahead in a background thread and each output is
encoded in its own (`g2w.video.overlap`, a few frames of queue each), so x264 never waits for
the renderer and the renderer never waits for x264. Everything is written into a hidden folder that is renamed to
`samples/<sample_id>/` only when complete, with `record.json` written last, so an existing
sample folder is always whole and reruns can skip it.

Output geometry follows the clip: its own size (cropped by a pixel to even dimensions if
needed, which yuv420p requires) and rate, and its first `profile.duration_s` seconds.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass
from itertools import chain

import numpy as np

from g2w.hud.aesthetic import NeuralDescriptor, VideoAppearance, probe_indices
from g2w.hud.annotate import Annotator
from g2w.hud.assets import AssetLibrary
from g2w.hud.composite import resolve_device
from g2w.hud.composite_yuv import YuvCompositor
from g2w.hud.layers import LayerSource
from g2w.hud.plan import plan_sample, rendered_events, rendered_widgets
from g2w.hud.preview import preview
from g2w.hud.profile import SynthProfile
from g2w.hud.record import write_json
from g2w.hud.seeds import SeedStreams
from g2w.io.html_page import save_png
from g2w.video import FrameReader, MaskWriter, VideoWriter, iter_video_frames, probe
from g2w.video.errors import CorruptVideoError, NoVideoStreamError, VideoError
from g2w.video.overlap import BackgroundWriter, prefetch
from g2w.video.yuv import frame_i420, i420_to_rgb, passthrough_matrix

MIN_FRAMES = 2
OUTPUTS = {
    "clean": "clean.mp4",
    "hud": "hud.mp4",
    "mask": "mask.mkv",
    "annotation": "annotation.json",
    "record": "record.json",
    "preview": "preview.png",
}


@dataclass(frozen=True)
class EncodeSettings:
    crf: int = 18
    preset: str = "veryfast"
    encoder: str = "libx264"
    threads: int = 0  # x264 threads per output (0: x264's own choice, 1.5 per core)


class ClipTooShortError(VideoError):
    reason = "too_short"


def clip_profile(path: str, profile: SynthProfile) -> SynthProfile:
    """The profile resized to the clip: even size, the clip's rate, at most profile.duration_s."""
    info = probe(path)
    if not info.has_video:
        raise NoVideoStreamError(f"{path}: no video stream")
    fps = info.fps or profile.fps
    frames = min(info.frame_count, round(profile.duration_s * fps))
    if frames < MIN_FRAMES:
        raise ClipTooShortError(f"{path}: {info.frame_count} frames, need at least {MIN_FRAMES}")
    return profile.with_size(info.width - info.width % 2, info.height - info.height % 2, fps, frames / fps)


def _appearance(path: str, profile: SynthProfile, neural: NeuralDescriptor | None) -> VideoAppearance:
    indices = probe_indices(profile.frame_count, profile.keyframes)
    frames = FrameReader(path).read(indices)[:, : profile.height, : profile.width]
    return VideoAppearance.from_frames(frames, list(indices), profile.keyframes, neural)


def _i420_frames(path: str, width: int, height: int) -> Iterator[tuple[np.ndarray, str]]:
    """(I420 frame, matrix) of the clip in order, cropped to width x height: the decoder's own
    planes when it gives limited-range yuv420p of that size, else converted with the matrix the
    first frame decided. One decoder thread: decoding runs beside the renderer and the encoders."""
    matrix = None
    for _, _, frame in iter_video_frames(path, threads=1):
        matrix = matrix or passthrough_matrix(frame) or "bt601"
        yield frame_i420(frame, width, height, matrix), matrix


def render_sample(
    clip_path: str,
    sample_dir: str,
    *,
    sample_id: str,
    clip_id: str,
    streams: SeedStreams,
    profile: SynthProfile,
    library: AssetLibrary,
    encode: EncodeSettings = EncodeSettings(),
    device: str = "auto",
    neural: NeuralDescriptor | None = None,
    clip_uri: str | None = None,
) -> dict:
    """Render one sample into `sample_dir`; returns a summary of it. Raises VideoError for bad clips.
    `clip_uri` is what the record names as the clip when `clip_path` is a local copy of it."""
    start = time.perf_counter()
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
    if device == "cuda":
        resolve_device(device)  # asked for explicitly: say so when there is none
    prof = clip_profile(clip_path, profile)
    appearance = _appearance(clip_path, prof, neural) if prof.aesthetic else None
    record = plan_sample(
        streams, prof, library, sample_id=sample_id, clip_id=clip_id, appearance=appearance, neural=neural
    )
    record["clip"] = {"path": clip_uri or os.path.abspath(clip_path), "width": prof.width, "height": prof.height}
    record["encoding"] = asdict(encode)
    record["outputs"] = OUTPUTS

    parent, name = os.path.split(os.path.abspath(sample_dir))
    tmp = os.path.join(parent, f".{name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    source = LayerSource(record, library.image)
    annotator = Annotator(source)
    w, h, n = prof.width, prof.height, prof.frame_count
    instances = source.instances()
    try:
        with ExitStack() as stack:
            frames = stack.enter_context(closing(prefetch(_i420_frames(clip_path, w, h), depth=4)))
            first = next(frames, None)
            matrix = first[1] if first is not None else "bt601"
            compositor = YuvCompositor(matrix)

            def video(name: str) -> BackgroundWriter:  # tagged BT.709 when the clip is, as its planes are
                writer = VideoWriter(
                    os.path.join(tmp, OUTPUTS[name]),
                    w,
                    h,
                    prof.fps,
                    encode.crf,
                    encode.preset,
                    encode.encoder,
                    threads=encode.threads,
                    bt709=matrix == "bt709",
                )
                return stack.enter_context(BackgroundWriter(writer, write=writer.write_i420))

            clean_out, hud_out = video("clean"), video("hud")
            mask_out = stack.enter_context(
                BackgroundWriter(MaskWriter(os.path.join(tmp, OUTPUTS["mask"]), w, h, prof.fps))
            )
            index = 0
            for clean, _ in chain([first] if first is not None else [], frames):
                if index == n:
                    break
                layers = source.frame(index, clean[:h])  # the Y plane: anchored elements track on it
                hud, mask = compositor(clean, layers)
                annotator.add(index, layers)
                clean_out.submit(clean)
                hud_out.submit(hud)
                mask_out.submit(mask)
                if index == n // 2:
                    save_png(
                        os.path.join(tmp, OUTPUTS["preview"]),
                        preview(
                            i420_to_rgb(clean, matrix),
                            i420_to_rgb(hud, matrix),
                            mask,
                            annotator.frames[-1]["objects"],
                            instances,
                        ),
                    )
                index += 1
            if index < n:
                raise CorruptVideoError(f"{clip_path}: decoded {index} frames, expected {n}")
            for out in (clean_out, hud_out, mask_out):  # all three flush their encoders at once
                out.finish()
        annotation = annotator.result()
        write_json(os.path.join(tmp, OUTPUTS["annotation"]), annotation)
        write_json(os.path.join(tmp, OUTPUTS["record"]), record, indent=1)
        if os.path.exists(sample_dir):  # an incomplete folder left by an older run
            shutil.rmtree(sample_dir)
        os.replace(tmp, sample_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summarize(record, annotation, time.perf_counter() - start, compositor.device)


def summarize(record: dict, annotation: dict, seconds: float | None = None, device: str | None = None) -> dict:
    """The manifest fields describing one finished sample."""
    widgets = [w for w in record["persistent"] if "skipped" not in w]
    return {
        "style": record["style"]["name"],
        "persistent": len(rendered_widgets(record)),
        "suppressed": sum(1 for w in widgets if w["suppressed"]),
        "events": len(rendered_events(record)),
        "instances": len(annotation["instances"]),
        "render_s": None if seconds is None else round(seconds, 3),
        "device": device,
    }
