"""Per-window quality measurements from sampled frames, and the verdicts drawn from them.

Measured on luma at a fixed analysis size (short side 360 px by default), so values compare
across source resolutions:
- brightness: mean luma per sample; the fractions of samples that are dark (dim and nothing in
  them bright: a starfield is dark on average but not "too dark") or blown out;
- sharpness: median variance of the Laplacian (low = blurred or out of focus);
- motion: mean |Δluma| between consecutive samples, and the fraction of steps that are frozen
  (almost no pixel changes at all: a still camera with one small thing moving is not frozen);
- shake: how often the global-motion path (the cut detector's phase-correlation shift, every
  frame) reverses direction with a step of some size on both sides. Jitter flips the shift
  frame after frame and gets nowhere; an intentional pan or turn, however fast, keeps its
  direction for many frames, so speed alone never reads as shake;
- border: letterbox/pillarbox bars that stay across the window (`borders.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from g2w.curate.borders import border_fraction
from g2w.curate.config import QualityThresholds

SHAKE_STEP = 0.004  # frame widths per frame: smaller reversals are codec noise or aim correction
CHANGE_LEVEL = 8  # |Δluma| above this is a real change, not codec noise
BORDER_EVERY = 4  # bars are measured on every 4th sample: they change only between shots


@dataclass
class QualityAccumulator:
    """Collects a window's samples one at a time; `measures()` summarizes them."""

    lumas: list[float] = field(default_factory=list)
    highlights: list[float] = field(default_factory=list)  # 99th percentile luma
    shadows: list[float] = field(default_factory=list)  # 1st percentile luma
    sharpness: list[float] = field(default_factory=list)
    diffs: list[float] = field(default_factory=list)
    changed: list[float] = field(default_factory=list)  # share of pixels that really changed
    borders: list[float] = field(default_factory=list)
    _prev: np.ndarray | None = None

    def add(self, gray: np.ndarray) -> None:
        """One sampled frame, uint8 luma at the analysis size."""
        self.lumas.append(float(cv2.mean(gray)[0]))
        hist = np.cumsum(cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel())
        self.shadows.append(float(np.searchsorted(hist, 0.01 * hist[-1])))
        self.highlights.append(float(np.searchsorted(hist, 0.99 * hist[-1])))
        self.sharpness.append(float(cv2.meanStdDev(cv2.Laplacian(gray, cv2.CV_16S))[1][0, 0] ** 2))
        if len(self.lumas) % BORDER_EVERY == 1:
            self.borders.append(border_fraction(gray))
        if self._prev is not None:
            diff = cv2.absdiff(gray, self._prev)
            self.diffs.append(float(cv2.mean(diff)[0]))
            self.changed.append(
                cv2.countNonZero(cv2.threshold(diff, CHANGE_LEVEL, 255, cv2.THRESH_BINARY)[1]) / diff.size
            )
        self._prev = gray

    def measures(self, thresholds: QualityThresholds) -> dict:
        lumas = np.array(self.lumas or [0.0])
        highlights, shadows = np.array(self.highlights or [0.0]), np.array(self.shadows or [0.0])
        dark = (lumas < thresholds.dark_luma) & (highlights < 3 * thresholds.dark_luma)
        bright = (lumas > thresholds.bright_luma) & (shadows > 255 - 3 * (255 - thresholds.bright_luma))
        return {
            "luma_mean": float(lumas.mean()),
            "dark_fraction": float(dark.mean()),
            "bright_fraction": float(bright.mean()),
            "sharpness": float(np.median(self.sharpness)) if self.sharpness else 0.0,
            "motion": float(np.mean(self.diffs)) if self.diffs else 0.0,
            "frozen_fraction": float((np.array(self.changed) < thresholds.frozen_change).mean())
            if self.changed
            else 1.0,
            "border_fraction": float(np.median(self.borders)) if self.borders else 0.0,
            "samples": len(self.lumas),
        }


def shake_score(shifts: np.ndarray) -> float:
    """Share of consecutive known steps of the global-motion path ((n, 2) shifts per frame, in
    frame widths, NaN when unknown) that reverse direction on an axis, with both steps at least
    SHAKE_STEP long on it."""
    a, b = shifts[:-1], shifts[1:]
    known = ~(np.isnan(a).any(axis=1) | np.isnan(b).any(axis=1))
    if not known.any():
        return 0.0
    a, b = a[known], b[known]
    reversed_ = (a * b < 0) & (np.minimum(np.abs(a), np.abs(b)) >= SHAKE_STEP)
    return float(reversed_.any(axis=1).mean())


def quality_failures(m, t: QualityThresholds, short_side, fps) -> list[tuple[str, np.ndarray]]:
    """(check name, failed) for every check, in a fixed order. Works on scalars (one window) and
    on equal-length numpy columns (a million windows at once), so selection never builds rows."""
    dark = np.asarray(m["dark_fraction"]) > t.max_dark_fraction
    return [
        ("low_resolution", np.asarray(short_side) < t.min_short_side),
        ("fps_out_of_range", (np.asarray(fps) < t.min_fps) | (np.asarray(fps) > t.max_fps)),
        ("too_dark", dark),
        ("too_bright", np.asarray(m["bright_fraction"]) > t.max_bright_fraction),
        ("frozen", np.asarray(m["frozen_fraction"]) > t.max_frozen_fraction),
        ("blurry", (np.asarray(m["sharpness"]) < t.min_sharpness) & ~dark),  # dark frames are flat for another reason
        ("shaky", np.asarray(m["shake"]) > t.max_shake),
        ("border", np.asarray(m["border_fraction"]) > t.max_border_fraction),
        ("ui_overlay", np.asarray(m["ui_coverage"]) > t.max_ui_coverage),
    ]


def quality_reasons(m: dict, t: QualityThresholds, short_side: int, fps: float) -> list[str]:
    """Every failed check of one window, in a fixed order; the first is the row's reason."""
    return [name for name, failed in quality_failures(m, t, short_side, fps) if bool(failed)]
