"""Validation metrics: mask IoU, pixel F1, per-label recall and box AP50 per label.

Pixel counts accumulate over every validation frame (so a large HUD does not count more than
its pixels); boxes are scored the PASCAL way: per label, predictions sorted by score, a
prediction is a hit when it overlaps a not-yet-matched ground-truth box of that label on the
same frame with IoU >= 0.5, and AP is the area under the interpolated precision-recall curve.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from g2w.taxonomy import LABELS


def box_iou(a, b) -> float:
    """IoU of two half-open [x1, y1, x2, y2] boxes."""
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def average_precision(predictions: list[tuple], truths: list[tuple], threshold: float = 0.5) -> float | None:
    """AP of predictions [(frame_key, score, box)] against truths [(frame_key, box)]; None without truths."""
    if not truths:
        return None
    by_frame = defaultdict(list)
    for key, box in truths:
        by_frame[key].append(box)
    used = {key: [False] * len(boxes) for key, boxes in by_frame.items()}
    hits = []
    for key, _, box in sorted(predictions, key=lambda p: -p[1]):
        ious = [box_iou(box, t) if not used[key][k] else -1.0 for k, t in enumerate(by_frame.get(key, []))]
        best = int(np.argmax(ious)) if ious else -1
        hit = best >= 0 and ious[best] >= threshold
        if hit:
            used[key][best] = True
        hits.append(hit)
    if not hits:
        return 0.0
    tp = np.cumsum(hits)
    recall = tp / len(truths)
    precision = tp / np.arange(1, len(hits) + 1)
    # interpolated: precision at recall r is the best precision at any recall >= r
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    steps = np.diff(np.concatenate([[0.0], recall]))
    return float((steps * precision).sum())


@dataclass
class SegmentationScore:
    """Accumulates pixel counts and boxes over frames; `result()` gives the metrics."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    label_total: dict = field(default_factory=lambda: defaultdict(int))
    label_found: dict = field(default_factory=lambda: defaultdict(int))
    label_correct: dict = field(default_factory=lambda: defaultdict(int))
    predicted_boxes: dict = field(default_factory=lambda: defaultdict(list))
    true_boxes: dict = field(default_factory=lambda: defaultdict(list))

    def add_pixels(
        self,
        predicted: np.ndarray,
        truth: np.ndarray,
        predicted_labels: np.ndarray | None = None,
        true_labels: np.ndarray | None = None,
    ) -> None:
        """predicted/truth: boolean UI masks; labels: int maps (-1 where no UI) of the same shape."""
        self.tp += int((predicted & truth).sum())
        self.fp += int((predicted & ~truth).sum())
        self.fn += int((~predicted & truth).sum())
        if true_labels is None:
            return
        for k in np.unique(true_labels[true_labels >= 0]):
            where = true_labels == k
            self.label_total[LABELS[k]] += int(where.sum())
            self.label_found[LABELS[k]] += int((where & predicted).sum())
            if predicted_labels is not None:
                self.label_correct[LABELS[k]] += int((where & predicted & (predicted_labels == k)).sum())

    def add_boxes(self, frame_key, predicted: list[tuple[str, float, list]], truth: list[tuple[str, list]]) -> None:
        """predicted: [(label, score, box)]; truth: [(label, box)] for one frame."""
        for label, score, box in predicted:
            self.predicted_boxes[label].append((frame_key, score, box))
        for label, box in truth:
            self.true_boxes[label].append((frame_key, box))

    def result(self) -> dict:
        union = self.tp + self.fp + self.fn
        ap = {
            label: average_precision(self.predicted_boxes[label], self.true_boxes[label])
            for label in sorted(self.true_boxes)
        }
        ap = {k: round(v, 4) for k, v in ap.items() if v is not None}
        return {
            "mask_iou": round(self.tp / union, 4) if union else None,
            "pixel_f1": round(2 * self.tp / (2 * self.tp + self.fp + self.fn), 4) if union else None,
            "label_recall": {k: round(self.label_found[k] / n, 4) for k, n in sorted(self.label_total.items())},
            "label_accuracy": {k: round(self.label_correct[k] / n, 4) for k, n in sorted(self.label_total.items())},
            "box_ap50": ap,
            "box_map50": round(float(np.mean(list(ap.values()))), 4) if ap else None,
        }
