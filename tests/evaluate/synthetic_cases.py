"""Tiny synthesis output folders in the exact contract shape, for evaluation tests.

Each sample is a short clean clip from `g2w.sample_data.render_frames` with a few drawn widgets
composited on top: an opaque bordered panel, text, a semi-transparent panel with text, a
moving icon, and a badge that hangs partly off the right edge. The mask, the annotation boxes
(tight alpha >= 8 support, clipped, half-open) and visible fractions come from the same alpha
layers, as synthesis computes them.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.sample_data import VideoSpec, render_frames
from g2w.video import MaskWriter, VideoWriter

ALPHA_MIN = 8
STYLES = ("corridor", "topdown", "sidescroller", "racing")


def _layer(w: int, h: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    return img, ImageDraw.Draw(img)


def widgets(frame: int, w: int, h: int, fps: float) -> list[tuple[str, str, str, Image.Image]]:
    """(instance id, label, kind, full-frame RGBA layer) for every widget visible at `frame`."""
    s = h / 180
    out = []
    img, d = _layer(w, h)
    d.rectangle(
        (int(8 * s), int(140 * s), int(88 * s), int(170 * s)),
        fill=(20, 30, 60, 255),
        outline=(240, 200, 40, 255),
        width=2,
    )
    d.rectangle(
        (int(14 * s), int(150 * s), int(14 * s + 60 * s * (1 - frame / 300)), int(160 * s)), fill=(220, 40, 40, 255)
    )
    out.append(("hp", "player_status", "persistent", img))
    img, d = _layer(w, h)
    d.text(
        (int(230 * s), int(6 * s)),
        f"SCORE {1000 + frame}",
        font=font(max(8, int(12 * s)), bold=True),
        fill=(255, 255, 255, 255),
        stroke_width=1,
        stroke_fill=(0, 0, 0, 255),
    )
    out.append(("score", "match_status", "persistent", img))
    img, d = _layer(w, h)
    d.rectangle((int(8 * s), int(8 * s), int(120 * s), int(40 * s)), fill=(0, 0, 0, 128))
    d.text((int(14 * s), int(16 * s)), "FIND THE KEY", font=font(max(8, int(11 * s))), fill=(255, 255, 160, 230))
    out.append(("quest", "objective_status", "persistent", img))
    img, d = _layer(w, h)
    cx = int((100 + 120 * frame / max(1, 3 * fps)) * s)
    cy = int(90 * s)
    r = int(9 * s)
    d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=(80, 255, 80, 255), width=2)
    d.line((cx - r - 4, cy, cx + r + 4, cy), fill=(80, 255, 80, 255), width=2)
    out.append(("marker", "world_context", "transient", img))
    if fps * 0.5 <= frame < fps * 2.2:
        img, d = _layer(w, h)
        d.rectangle((w - int(30 * s), int(60 * s), w + int(40 * s), int(84 * s)), fill=(200, 120, 20, 235))
        d.text(
            (w - int(26 * s), int(64 * s)), "NEW ITEM", font=font(max(8, int(11 * s)), bold=True), fill=(0, 0, 0, 255)
        )
        out.append(("badge", "screen_notice", "transient", img))
    return out


def _box(alpha: np.ndarray) -> list[int] | None:
    ys, xs = np.nonzero(alpha >= ALPHA_MIN)
    if len(xs) == 0:
        return None
    return [int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1]


def write_sample(
    root: str, sample_id: str, style: str, index: int, width: int, height: int, fps: int, seconds: float
) -> dict:
    folder = os.path.join(root, "samples", sample_id)
    os.makedirs(folder, exist_ok=True)
    spec = VideoSpec(
        seed=11,
        index=index,
        width=width,
        height=height,
        fps=fps,
        duration_s=seconds,
        style=style,
        hud=False,
        first_event=None,
    )
    frames_meta, instances = [], {}
    with (
        VideoWriter(os.path.join(folder, "clean.mp4"), width, height, fps, crf=18, preset="ultrafast") as clean,
        VideoWriter(os.path.join(folder, "hud.mp4"), width, height, fps, crf=18, preset="ultrafast") as hud,
        MaskWriter(os.path.join(folder, "mask.mkv"), width, height, fps) as masks,
    ):
        for i, rgb in enumerate(render_frames(spec, with_hud=False)):
            clean.write(rgb)
            out = rgb.astype(np.float32)
            union = np.zeros((height, width), bool)
            objects = []
            for inst_id, label, kind, layer in widgets(i, width, height, fps):
                arr = np.asarray(layer)
                alpha = arr[..., 3:4].astype(np.float32) / 255
                out = out * (1 - alpha) + arr[..., :3] * alpha
                box = _box(arr[..., 3])
                if box is None:
                    continue
                instances.setdefault(
                    inst_id,
                    {
                        "id": inst_id,
                        "label": label,
                        "role": label,
                        "kind": kind,
                        "asset_id": None,
                        "asset_source": "test-procedural",
                        "parent": None,
                    },
                )
                union |= arr[..., 3] >= ALPHA_MIN
                fraction = 30 / 70 if inst_id == "badge" else 1.0  # 30 of the badge's 70 px are on screen
                objects.append({"id": inst_id, "box": box, "visible_fraction": fraction})
            hud.write(np.clip(out + 0.5, 0, 255).astype(np.uint8))
            masks.write(np.where(union, 255, 0).astype(np.uint8))
            frames_meta.append({"frame": i, "objects": objects})
    annotation = {
        "version": 1,
        "width": width,
        "height": height,
        "fps": float(fps),
        "frame_count": len(frames_meta),
        "coordinates": "half-open xyxy",
        "alpha_threshold": ALPHA_MIN,
        "instances": list(instances.values()),
        "frames": frames_meta,
    }
    with open(os.path.join(folder, "annotation.json"), "w") as f:
        json.dump(annotation, f)
    with open(os.path.join(folder, "record.json"), "w") as f:
        json.dump({"sample_id": sample_id, "seed": 11, "clip_id": f"clip_{index}", "style": style}, f)
    return {
        "sample_id": sample_id,
        "status": "ok",
        "reason": "",
        "clip_id": f"clip_{index}",
        "seed": 11,
        "width": width,
        "height": height,
        "fps": float(fps),
        "frame_count": len(frames_meta),
    }


def write_synthesis_out(
    root: str, count: int = 2, width: int = 320, height: int = 180, fps: int = 30, seconds: float = 3.0
) -> str:
    """A synthesis output folder with `count` ok samples and one error row."""
    rows = [
        write_sample(root, f"s{i:03d}", STYLES[i % len(STYLES)], i, width, height, fps, seconds) for i in range(count)
    ]
    rows.append(
        {
            "sample_id": "s_broken",
            "status": "error",
            "reason": "render_failed",
            "clip_id": "clip_x",
            "seed": 11,
            "width": 0,
            "height": 0,
            "fps": 0.0,
            "frame_count": 0,
        }
    )
    pq.write_table(pa.Table.from_pylist(rows), os.path.join(root, "manifest.parquet"))
    return root
