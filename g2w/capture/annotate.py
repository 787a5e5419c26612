"""Appendix G annotations from a capture's difference mask: boxes, grouped and tracked.

Per frame, the raw difference is grouped by closing gaps up to `GROUP_PX` (so the glyphs of one
readout form one element), and each group's box is the tight half-open box of its differing
pixels, grown by the mask's dilation. A group belongs to the game's layout region that holds its
centre; a region is one instance for the whole clip, labelled from the game module's layout.
Groups outside every region are `other_hud` (the taxonomy's label for UI that fits no known
place) and are tracked from frame to frame by box overlap. Groups of fewer than `MIN_PIXELS`
differing pixels stay in the mask but get no box: they are specks, not readable UI.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.capture.game import Region
from g2w.capture.pair import DILATION_PX

GROUP_PX = 8
MIN_PIXELS = 24
TRACK_IOU = 0.3
ANNOTATION_VERSION = 1


def _groups(raw: np.ndarray, width: int, height: int) -> list[tuple[list[int], int]]:
    """(box, pixel count) of each group of differing pixels in one (H, W) bool frame."""
    kernel = np.ones((GROUP_PX + 1, GROUP_PX + 1), np.uint8)
    grouped = cv2.dilate(raw.astype(np.uint8), kernel)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(grouped, connectivity=8)
    out = []
    for k in range(1, count):
        x, y, w, h = (int(v) for v in stats[k, :4])
        ys, xs = np.nonzero((labels[y : y + h, x : x + w] == k) & raw[y : y + h, x : x + w])
        if len(xs) < MIN_PIXELS:
            continue
        box = [
            max(0, x + int(xs.min()) - DILATION_PX),
            max(0, y + int(ys.min()) - DILATION_PX),
            min(width, x + int(xs.max()) + 1 + DILATION_PX),
            min(height, y + int(ys.max()) + 1 + DILATION_PX),
        ]
        out.append((box, len(xs)))
    return out


def _union(a: list[int], b: list[int]) -> list[int]:
    return [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])]


def _iou(a: list[int], b: list[int]) -> float:
    iw = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def annotate_mask(raw: np.ndarray, layout: tuple[Region, ...], fps: float) -> dict:
    """The annotation.json content for a (T, H, W) bool difference."""
    frames_n, height, width = raw.shape
    instances: dict[str, dict] = {}
    tracks: dict[str, list[int]] = {}  # other_hud id -> its box in the previous frame
    frames = []
    for index in range(frames_n):
        boxes: dict[str, list[int]] = {}
        for box, _ in _groups(raw[index], width, height):
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            region = next((r for r in layout if r.contains(cx, cy, width, height)), None)
            if region is not None:
                iid = region.name
                if iid not in instances:
                    instances[iid] = {
                        "id": iid,
                        "label": region.label,
                        "role": region.name,
                        "kind": region.kind,
                        "parent": None,
                    }
            else:
                iid = max(tracks, key=lambda t: _iou(tracks[t], box), default=None)
                if iid is None or _iou(tracks[iid], box) < TRACK_IOU or iid in boxes:
                    iid = f"other-{sum(1 for i in instances if i.startswith('other-')) + 1}"
                    instances[iid] = {
                        "id": iid,
                        "label": "other_hud",
                        "role": "unknown",
                        "kind": "transient",
                        "parent": None,
                    }
            boxes[iid] = _union(boxes[iid], box) if iid in boxes else box
        tracks = {i: b for i, b in boxes.items() if i.startswith("other-")}
        frames.append(
            {"frame": index, "objects": [{"id": i, "box": b, "visible_fraction": 1.0} for i, b in boxes.items()]}
        )
    return {
        "version": ANNOTATION_VERSION,
        "width": width,
        "height": height,
        "fps": float(fps),
        "frame_count": frames_n,
        "coordinates": "half-open xyxy",
        "alpha_threshold": 1,
        "instances": list(instances.values()),
        "frames": frames,
    }
