"""Reading frame-level UI annotations (Appendix G schema) for evaluation.

Synthetic annotations list every frame; wild ones may list only the frames a person annotated.
Either way the result is an `Annotation`: the canvas the boxes live in, the instance table
(identity, label, role, kind, parent, for a translucent element its opacity, for a text element
its text) and, per listed frame, the visible objects and their
half-open boxes. Structural problems raise `AnnotationError` so a job can record the case as
broken instead of crashing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from g2w.taxonomy import LABELS

TOP_LEVEL_KEYS = {
    "version",
    "width",
    "height",
    "fps",
    "frame_count",
    "coordinates",
    "alpha_threshold",
    "instances",
    "frames",
}
KINDS = {"persistent", "transient", "child"}


class AnnotationError(ValueError):
    reason = "bad_annotation"


@dataclass(frozen=True)
class Instance:
    id: str
    label: str
    role: str
    kind: str
    parent: str | None
    translucent: bool = False  # a see-through layer (band, panel): the world shows through it
    opacity: float | None = None  # its opacity in (0, 1), where known
    text: str | None = None  # what a text element reads (a kill-feed or chat line, a name tag), where known


@dataclass(frozen=True)
class FrameObject:
    id: str
    box: tuple[int, int, int, int]
    visible_fraction: float


@dataclass(frozen=True)
class Annotation:
    width: int
    height: int
    fps: float
    frame_count: int
    instances: dict[str, Instance]
    frames: dict[int, tuple[FrameObject, ...]]

    def objects_at(self, frame: int) -> tuple[FrameObject, ...]:
        """Objects annotated at `frame`; a frame the annotation does not list has none."""
        return self.frames.get(frame, ())

    def element_order(self) -> list[str]:
        """Instance ids in the annotation's own order: the order elements are listed and numbered."""
        return list(self.instances)


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise AnnotationError(message)


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _box(raw, width: int, height: int, where: str) -> tuple[int, int, int, int]:
    _need(isinstance(raw, list) and len(raw) == 4 and all(_int(v) for v in raw), f"{where}: box must be 4 integers")
    x1, y1, x2, y2 = raw
    _need(
        0 <= x1 < x2 <= width and 0 <= y1 < y2 <= height,
        f"{where}: box {raw} is not a non-empty half-open box inside {width}x{height}",
    )
    return x1, y1, x2, y2


def parse_annotation(data: dict) -> Annotation:
    """Validate and convert a decoded annotation.json."""
    _need(isinstance(data, dict), "annotation must be a JSON object")
    _need(set(data) == TOP_LEVEL_KEYS, f"annotation keys {sorted(data)} != {sorted(TOP_LEVEL_KEYS)}")
    _need(data["coordinates"] == "half-open xyxy", f"unsupported coordinates {data['coordinates']!r}")
    width, height, frame_count = data["width"], data["height"], data["frame_count"]
    _need(_int(width) and _int(height) and width > 0 and height > 0, "width/height must be positive integers")
    _need(_int(frame_count) and frame_count > 0, "frame_count must be a positive integer")
    _need(isinstance(data["fps"], (int, float)) and data["fps"] > 0, "fps must be positive")
    _need(isinstance(data["instances"], list) and isinstance(data["frames"], list), "instances/frames must be lists")

    instances: dict[str, Instance] = {}
    for k, inst in enumerate(data["instances"]):
        where = f"instances[{k}]"
        _need(
            isinstance(inst, dict) and {"id", "label", "role", "kind"} <= set(inst),
            f"{where}: needs id, label, role, kind",
        )
        _need(isinstance(inst["id"], str) and inst["id"], f"{where}: id must be a non-empty string")
        _need(inst["id"] not in instances, f"{where}: duplicate instance id {inst['id']!r}")
        _need(inst["label"] in LABELS, f"{where}: label {inst['label']!r} is not one of the 21 taxonomy labels")
        _need(inst["kind"] in KINDS, f"{where}: kind {inst['kind']!r} not in {sorted(KINDS)}")
        parent = inst.get("parent")
        translucent = inst.get("translucent", False)
        opacity = inst.get("opacity")
        text = inst.get("text")
        _need(text is None or isinstance(text, str), f"{where}: text must be a string")
        _need(isinstance(translucent, bool), f"{where}: translucent must be true or false")
        _need(
            opacity is None
            or (isinstance(opacity, (int, float)) and not isinstance(opacity, bool) and 0 < opacity <= 1),
            f"{where}: opacity must be a number in (0, 1]",
        )
        instances[inst["id"]] = Instance(
            inst["id"],
            inst["label"],
            str(inst["role"]),
            inst["kind"],
            parent,
            translucent,
            None if opacity is None else float(opacity),
            text,
        )
    for inst in instances.values():
        _need(inst.parent is None or inst.parent in instances, f"instance {inst.id!r}: unknown parent {inst.parent!r}")

    frames: dict[int, tuple[FrameObject, ...]] = {}
    for k, rec in enumerate(data["frames"]):
        where = f"frames[{k}]"
        _need(
            isinstance(rec, dict) and _int(rec.get("frame")) and isinstance(rec.get("objects"), list),
            f"{where}: needs an integer frame and an objects list",
        )
        index = rec["frame"]
        _need(0 <= index < frame_count, f"{where}: frame {index} outside 0..{frame_count - 1}")
        _need(index not in frames, f"{where}: frame {index} listed twice")
        objects, seen = [], set()
        for obj in rec["objects"]:
            _need(isinstance(obj, dict) and obj.get("id") in instances, f"{where}: object with unknown id")
            _need(obj["id"] not in seen, f"{where}: object {obj['id']!r} listed twice")
            seen.add(obj["id"])
            fraction = obj.get("visible_fraction", 1.0)
            _need(isinstance(fraction, (int, float)) and 0 <= fraction <= 1, f"{where}: bad visible_fraction")
            objects.append(FrameObject(obj["id"], _box(obj.get("box"), width, height, where), float(fraction)))
        frames[index] = tuple(objects)
    return Annotation(width, height, float(data["fps"]), frame_count, instances, frames)


def load_annotation(path: str | os.PathLike) -> Annotation:
    try:
        with open(path) as f:
            data = json.load(f)
    except FileNotFoundError as exc:
        raise AnnotationError(f"{path}: no such annotation file") from exc
    except (OSError, ValueError) as exc:
        raise AnnotationError(f"{path}: not readable JSON ({exc})") from exc
    try:
        return parse_annotation(data)
    except AnnotationError as exc:
        raise AnnotationError(f"{path}: {exc}") from exc
