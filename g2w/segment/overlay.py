"""Pictures of a segmentation: the UI mask tinted over the frame, boxes and labels drawn on."""

from __future__ import annotations

import cv2
import numpy as np

TINT = np.array([255, 0, 160], np.float32)


def overlay(
    rgb: np.ndarray, mask: np.ndarray, boxes: list[tuple[str, list[int]]] = (), color=(0, 255, 0)
) -> np.ndarray:
    """rgb (H, W, 3) with mask (H, W; >0 = UI) tinted magenta and each (label, box) outlined."""
    out = rgb.astype(np.float32)
    ui = mask > 0
    out[ui] = 0.45 * out[ui] + 0.55 * TINT
    out = out.astype(np.uint8)
    thick = max(1, round(max(rgb.shape[:2]) / 500))
    for label, (x1, y1, x2, y2) in boxes:
        cv2.rectangle(out, (x1, y1), (x2 - 1, y2 - 1), color, thick)
        cv2.putText(out, label, (x1, max(10, y1 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.35 * thick, color, thick)
    return out
