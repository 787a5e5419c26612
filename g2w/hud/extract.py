"""`g2w assets extract ANNOTATIONS --output LIB`: transparent assets from annotated real footage.

ANNOTATIONS is JSON (a list, or {"annotations": [...]}, or one object) or JSONL. Each entry
names a `video` (or an `image`), a `time` in seconds (videos; default 0) and `boxes`, each with
a half-open `box` [x1, y1, x2, y2] in that source's pixels and a `label` (one of the 21), and
optionally a `role`. `verified` (default true, on the entry or a box) says a person checked
the box. Relative paths resolve against the annotation file's folder.

From a video, frames spread over `span_s` seconds around the time are matted temporally
(`g2w.hud.matting`); if the background never moves there, the frame at the time is cut with
GrabCut instead. Lone images always use GrabCut. Each asset keeps its provenance, tight box,
normalized centre and scale, method and confidence; it is verified (and renderable) only if its
box was verified and its confidence reaches `min_confidence`. Status panels get their bar
geometry; inventories are split into a clean bar and icons, or recorded as a skipped split.
Bad sources and boxes become error entries in the summary, never a crash.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image

from g2w.hud.assets import Asset, LibraryWriter, asset_id, describe, tighten
from g2w.hud.library_page import write_library_report
from g2w.hud.matting import Matte, grabcut_matte, temporal_matte
from g2w.hud.structure import detect_bars, split_inventory
from g2w.taxonomy import ICON_ROLE, PERSISTENT_LABEL_ROLES, check_label
from g2w.types import Box
from g2w.video import FrameReader, probe
from g2w.video.errors import MissingFileError, VideoError
from g2w.video.sources import source_id

# Chosen with benchmarks/calibrate_extraction.py (game styles x sizes x overlays x spans, animated
# overlays and too-short spans included): the threshold where most accepted mattes are good (soft
# IoU >= 0.8 and alpha error <= 0.12) while few good ones are turned away. GrabCut
# confidences are capped below it (matting.GRABCUT_CAP), so lone-image cut-outs stay unverified
# unless a lower threshold is asked for.
MIN_CONFIDENCE = 0.6
STILL_BACKGROUND_SD = 2.0  # ring s.d. (levels) below which the world is taken as not moving at all


@dataclass(frozen=True)
class ExtractConfig:
    frames: int = 32  # frames matted per box
    span_s: float = 20.0  # seconds of video around the time they are spread over
    margin_frac: float = 0.25  # background ring width, fraction of the box's shorter side
    margin_min_px: int = 8
    min_confidence: float = MIN_CONFIDENCE


class AnnotationError(ValueError):
    reason = "bad_annotation"


def load_annotations(path: str) -> list[dict]:
    """Entries with absolute `source`, `kind` (video|image), `time`, `verified` and `boxes`."""
    with open(path) as f:
        text = f.read()
    if path.endswith(".jsonl"):
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        data = json.loads(text)
        items = data.get("annotations", [data]) if isinstance(data, dict) else data
    base = os.path.dirname(os.path.abspath(path))
    out = []
    for k, item in enumerate(items):
        kind = "video" if "video" in item else "image" if "image" in item else None
        if kind is None or not isinstance(item.get("boxes"), list):
            raise AnnotationError(f"{path}: entry {k} needs a 'video' or 'image' and a list of 'boxes'")
        src = item[kind]
        out.append(
            {
                "source": src if os.path.isabs(src) else os.path.join(base, src),
                "kind": kind,
                "time": float(item.get("time", 0.0)),
                "verified": bool(item.get("verified", True)),
                "boxes": item["boxes"],
            }
        )
    return out


def default_role(label: str) -> str:
    return PERSISTENT_LABEL_ROLES.get(label, ("element",))[0]


class _Source:
    """Frames of one annotated video or image, with its size."""

    def __init__(self, entry: dict):
        self.kind, self.path = entry["kind"], entry["source"]
        if self.kind == "video":
            info = probe(self.path)
            self.reader = FrameReader(self.path)
            self.width, self.height, self.duration = info.width, info.height, info.duration_s
        else:
            if not os.path.exists(self.path):
                raise MissingFileError(f"{self.path}: no such file")
            with Image.open(self.path) as img:
                self.image = np.asarray(img.convert("RGB"))
            self.height, self.width = self.image.shape[:2]
        self.id = source_id(self.path)

    def matte(self, box: Box, t: float, cfg: ExtractConfig) -> Matte:
        """The matte of `box` (an RGBA the size of the box), from a window with a margin ring."""
        m = max(cfg.margin_min_px, round(cfg.margin_frac * min(box.width, box.height)))
        window = box.expand(m).clip(self.width, self.height)
        inner = box.shift(-window.x1, -window.y1)
        crop = (slice(window.y1, window.y2), slice(window.x1, window.x2))
        if self.kind == "image":
            return grabcut_matte(self.image[crop], inner)
        half = cfg.span_s / 2
        lo, hi = max(0.0, t - half), min(self.duration, t + half)
        times = np.linspace(lo, max(lo, hi - 1e-3), cfg.frames)
        frames = self.reader.read(np.unique(self.reader.index_at(times)))
        if len(frames) >= 3:
            matte = temporal_matte(frames[:, crop[0], crop[1]], inner)
            if matte.diagnostics["ring_motion"] >= STILL_BACKGROUND_SD:
                return matte
        # the background never moves here: time cannot separate UI from world
        still = self.reader.read_at([t])[0]
        matte = grabcut_matte(still[crop], inner)
        matte.diagnostics["fallback"] = "static_background"
        return matte


def _structure(label: str, role: str, rgba: np.ndarray):
    """(structure, separated inventory or None) for an extracted asset."""
    if label == "player_status":
        bars = detect_bars(rgba, ("stm",) if role == "stamina" else ("hp", "stm"))
        return ({"bars": bars} if bars else {}), None
    if label == "inventory" and role == "weapon_bar":
        split = split_inventory(rgba)
        if not split.ok:
            return {"split": "skipped", "reason": split.reason, **split.diagnostics}, None
        return {"slots": split.slots, "split": "ok", **split.diagnostics}, split
    return {}, None


def _asset_rows(entry: dict, src: _Source, spec: dict, cfg: ExtractConfig) -> list[tuple[Asset, np.ndarray]]:
    label = check_label(spec["label"])
    role = spec.get("role") or default_role(label)
    box = Box.from_list(spec["box"])
    if box.clip(src.width, src.height) != box or box.width < 4 or box.height < 4:
        raise AnnotationError(f"box {box.to_list()} is not inside the {src.width}x{src.height} source or is tiny")
    matte = src.matte(box, entry["time"], cfg)
    rgba, (dx, dy) = tighten(matte.rgba)
    tight = Box.from_xywh(box.x1 + dx, box.y1 + dy, rgba.shape[1], rgba.shape[0])  # the matte covers the box
    verified = entry["verified"] and bool(spec.get("verified", True)) and matte.confidence >= cfg.min_confidence
    structure, split = _structure(label, role, rgba)
    aid = asset_id("ext", label, src.id, f"{entry['time']:.3f}", box.to_list())
    base = Asset(
        asset_id=aid,
        label=label,
        role=role,
        source="extracted",
        width=rgba.shape[1],
        height=rgba.shape[0],
        scale_w=tight.width / src.width,
        scale_h=tight.height / src.height,
        verified=verified,
        renderable=verified,
        extraction_method=matte.method,
        confidence=matte.confidence,
        source_video=src.path,
        source_time=entry["time"] if src.kind == "video" else None,
        source_box=tight.to_list(),
        center_x=(tight.x1 + tight.x2) / 2 / src.width,
        center_y=(tight.y1 + tight.y2) / 2 / src.height,
        structure=structure,
        notes=json.dumps(matte.diagnostics, sort_keys=True),
    )
    if split is None:
        return [(base, rgba)]
    rows = [(replace(base, extraction_method="inventory_split", descriptor=describe(split.bar)), split.bar)]
    for slot, icon in split.icons:
        icon_rgba, _ = tighten(icon)
        rows.append(
            (
                Asset(
                    asset_id=asset_id("ext", label, src.id, f"{entry['time']:.3f}", box.to_list(), "icon", slot),
                    label=label,
                    role=ICON_ROLE,
                    source="extracted",
                    width=icon_rgba.shape[1],
                    height=icon_rgba.shape[0],
                    scale_w=icon_rgba.shape[1] / src.width,
                    scale_h=icon_rgba.shape[0] / src.height,
                    verified=verified,
                    renderable=verified,
                    extraction_method="inventory_split",
                    confidence=matte.confidence,
                    source_video=src.path,
                    source_time=base.source_time,
                    source_box=tight.to_list(),
                    parent_id=aid,
                    notes=f"slot {slot}",
                ),
                icon_rgba,
            )
        )
    return rows


def extract_assets(annotations: str, output: str, cfg: ExtractConfig = ExtractConfig(), progress=None) -> dict:
    """Extract every annotated box into the library at `output` (then write its report); returns
    a summary with one error entry per box that could not be extracted."""
    start = time.perf_counter()
    entries = load_annotations(annotations)
    stats, errors = Counter(), []
    confidences = []
    with LibraryWriter(output) as writer:
        for n, entry in enumerate(entries):
            try:
                src = _Source(entry)
            except (VideoError, OSError) as exc:
                errors += [
                    {
                        "source": entry["source"],
                        "box": b.get("box"),
                        "reason": getattr(exc, "reason", "unreadable"),
                        "error": str(exc),
                    }
                    for b in entry["boxes"]
                ]
                continue
            for spec in entry["boxes"]:
                try:
                    for asset, rgba in _asset_rows(entry, src, spec, cfg):
                        writer.add(asset, rgba)
                        stats["icons" if asset.role == ICON_ROLE else "assets"] += 1
                        if asset.role != ICON_ROLE:
                            stats[asset.extraction_method] += 1
                            stats["verified" if asset.verified else "unverified"] += 1
                            stats["split_skipped"] += asset.structure.get("split") == "skipped"
                            confidences.append(asset.confidence)
                except (ValueError, KeyError, VideoError) as exc:
                    errors.append(
                        {
                            "source": entry["source"],
                            "box": spec.get("box"),
                            "reason": getattr(exc, "reason", "bad_box"),
                            "error": str(exc),
                        }
                    )
            if progress:
                progress(n + 1, len(entries), entry["source"])
    write_library_report(output)
    return {
        "annotations": annotations,
        "library": output,
        "entries": len(entries),
        **dict(stats),
        "mean_confidence": round(float(np.mean(confidences)), 4) if confidences else None,
        "errors": errors,
        "seconds": round(time.perf_counter() - start, 3),
    }
