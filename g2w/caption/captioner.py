"""Captioning one segment: frames, one request, strict validation, bounded retries, a cached
record.

The record (`captions/<segment_id>.json`) holds the caption (when valid), every attempt's raw
reply with its validation errors and transport details, the client settings and the prompt's
hash; it is written whole, so a rerun that finds it (status ok or invalid, with the same
settings and prompt) returns it without a request. An endpoint that cannot be reached, or times
out after its transport retries, gives an `error` row (`endpoint_unavailable`) and no file, so a
rerun tries again; a reply that fails the schema after `schema_retries` more attempts is
`invalid` (`schema_invalid`) with its reasons.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
from PIL import Image

from g2w.caption.client import CaptionClient, CaptionRequest
from g2w.caption.schema import validate_caption
from g2w.evaluate.judges.base import JudgeUnavailable
from g2w.io import storage
from g2w.step import Batch, Resources, Step
from g2w.video.decode import iter_video_frames
from g2w.video.errors import VideoError

FRAMES = 8
FRAME_WIDTH = 512


def load_prompt() -> str:
    return resources.files("g2w.caption").joinpath("prompt.txt").read_text(encoding="utf-8")


def render_prompt(template: str, duration_s: float, times: list[float]) -> str:
    return (
        template.replace("{duration_s}", f"{duration_s:g}")
        .replace("{frame_count}", str(len(times)))
        .replace("{frame_times}", ", ".join(f"{t:.1f}" for t in times))
    )


def sample_frames(video: str, duration_s: float, count: int = FRAMES) -> tuple[list[float], list[bytes]]:
    """(times, PNG bytes) of `count` frames at the centres of equal parts of the segment."""
    times = [(k + 0.5) * duration_s / count for k in range(count)]
    out_t, out = [], []
    for _, t, frame in iter_video_frames(video, 0.0, None, threads=1):
        if len(out) < count and t + 1e-3 >= times[len(out)]:
            h = max(2, round(frame.height * FRAME_WIDTH / frame.width))
            buf = io.BytesIO()
            Image.fromarray(frame.to_ndarray(format="rgb24", width=FRAME_WIDTH, height=h)).save(buf, "PNG")
            out_t.append(round(times[len(out)], 3))
            out.append(buf.getvalue())
        if len(out) == count:
            break
    return out_t, out


def caption_segment(
    client: CaptionClient,
    video: str,
    duration_s: float,
    out_path: str,
    schema_retries: int = 2,
    template: str | None = None,
) -> dict:
    template = template or load_prompt()
    settings = {
        **client.settings(),
        "prompt_sha256": hashlib.sha256(template.encode()).hexdigest(),
        "schema_retries": schema_retries,
        "frames": FRAMES,
    }
    if storage.exists(out_path):
        cached = json.loads(storage.read_bytes(out_path))
        if cached.get("settings") == settings:
            return {**cached, "cached": True}
    try:
        times, images = sample_frames(video, duration_s)
    except VideoError as exc:
        return {"status": "error", "reason": "unreadable", "message": str(exc)}
    if not images:
        return {"status": "error", "reason": "unreadable", "message": f"{video}: no frame decoded"}
    request = CaptionRequest(render_prompt(template, duration_s, times), tuple(images))
    attempts = []
    try:
        for attempt in range(schema_retries + 1):
            reply = client.call(request, attempt)
            check = validate_caption(reply.text, duration_s)
            attempts.append({"attempt": attempt, "raw": reply.text, "errors": check.errors, "meta": reply.meta})
            if check.ok:
                break
    except JudgeUnavailable as exc:
        return {"status": "error", "reason": "endpoint_unavailable", "message": str(exc)}
    record = {
        "status": "ok" if check.ok else "invalid",
        "reason": "" if check.ok else "schema_invalid",
        "message": "" if check.ok else f"no valid reply in {len(attempts)} attempts: {check.errors[:3]}",
        "caption": check.caption,
        "duration_s": duration_s,
        "frame_times_s": times,
        "attempts": attempts,
        "settings": settings,
    }
    storage.write_bytes(out_path, json.dumps(record, indent=1).encode())
    return {**record, "cached": False}


@dataclass
class CaptionSegments(Step):
    """Batch of (segment_id, video, duration_s, caption_path) -> status, reason, message."""

    client_options: dict = field(default_factory=dict)
    schema_retries: int = 2
    workers: int = 2  # concurrent requests to the endpoint

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1, max_workers=self.workers)

    def setup(self) -> None:
        self.client = CaptionClient(**self.client_options)

    def __call__(self, batch: Batch) -> Batch:
        out = {"segment_id": [], "caption_path": [], "caption_status": [], "caption_reason": [], "caption_message": []}
        for i in range(len(batch["segment_id"])):
            r = caption_segment(
                self.client,
                str(batch["video"][i]),
                float(batch["duration_s"][i]),
                str(batch["caption_path"][i]),
                self.schema_retries,
            )
            out["segment_id"].append(str(batch["segment_id"][i]))
            out["caption_path"].append(str(batch["caption_path"][i]) if r["status"] != "error" else "")
            out["caption_status"].append(r["status"])
            out["caption_reason"].append(r["reason"])
            out["caption_message"].append(r["message"])
        return {k: np.array(v, dtype=object) for k, v in out.items()}
