"""Checking a HUD/clean pair of lossless runs and deriving the HUD mask from their difference.

The mask is every pixel where the two runs differ, dilated by `DILATION_PX` pixels (a square
structuring element), so that the encoded MP4s' chroma subsampling and ringing around HUD edges
stay inside it. Outside the dilated mask the lossless runs are bit-identical by construction;
the checks that can fail are the ones that tell a real HUD difference from a broken replay:

- `frame_count_mismatch`: the runs delivered different numbers of frames;
- `hud_missing`: some frame has no difference at all (a wipe, an intermission, a menu);
- `desync`: a frame differs outside the game's HUD layout by more than `DESYNC_FRACTION` of its
  pixels (the world itself diverged, so the clean run is no ground truth);
- `hud_too_large`: the mask covers more than `MAX_COVERAGE` of the frame on average.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import cv2
import numpy as np

from g2w.capture.game import Region

DILATION_PX = 2
DESYNC_FRACTION = 0.005
MAX_COVERAGE = 0.4


@dataclass
class PairCheck:
    status: str  # ok or rejected
    reason: str
    mask: np.ndarray | None  # (T, H, W) uint8 0/255, dilated
    raw: np.ndarray | None  # (T, H, W) bool, the undilated difference
    stats: dict = field(default_factory=dict)


def layout_mask(layout: tuple[Region, ...], width: int, height: int) -> np.ndarray:
    """(H, W) bool: True inside some region of the HUD layout."""
    inside = np.zeros((height, width), bool)
    for r in layout:
        x1, y1, x2, y2 = r.box
        inside[round(y1 * height) : round(y2 * height), round(x1 * width) : round(x2 * width)] = True
    return inside


def dilate(raw: np.ndarray, px: int = DILATION_PX) -> np.ndarray:
    """Filled frame by frame into one array: a minute of 720p masks is gigabytes, so a list of
    frames stacked at the end would hold it twice."""
    kernel = np.ones((2 * px + 1, 2 * px + 1), np.uint8)
    out = np.empty(raw.shape, np.uint8)
    for f, o in zip(raw, out):
        cv2.dilate(f.astype(np.uint8) * 255, kernel, dst=o)
    return out


def differences(hud: np.ndarray, clean: np.ndarray) -> np.ndarray:
    """(T, H, W) bool `difference` of each frame pair, filled into one array (as `dilate`)."""
    out = np.empty(hud.shape[:3], bool)
    for h, c, o in zip(hud, clean, out):
        o[...] = difference(h, c)
    return out


def mad_outside(a: Iterable[np.ndarray], b: Iterable[np.ndarray], mask: Iterable[np.ndarray]) -> float:
    """Mean absolute difference of two clips (frames in order) over the pixels where `mask` is 0."""
    total, count = 0.0, 0
    for fa, fb, m in zip(a, b, mask):
        keep = (m == 0).astype(np.uint8)
        n = int(cv2.countNonZero(keep))
        if n:
            total += sum(cv2.mean(cv2.absdiff(np.asarray(fa), np.asarray(fb)), mask=keep)[:3]) * n
            count += n * 3
    return total / count if count else 0.0


def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels where two RGB frames differ in any channel."""
    d = cv2.absdiff(np.asarray(a), np.asarray(b))
    return (d[..., 0] | d[..., 1] | d[..., 2]) > 0


def check_pair(hud: np.ndarray, clean: np.ndarray, layout: tuple[Region, ...]) -> PairCheck:
    """Compare two lossless (T, H, W, 3) runs of the same replay."""
    if hud.shape != clean.shape:
        return PairCheck(
            "rejected",
            "frame_count_mismatch",
            None,
            None,
            {"hud_frames": int(hud.shape[0]), "clean_frames": int(clean.shape[0])},
        )
    frames, height, width = hud.shape[:3]
    raw = differences(hud, clean)
    outside = ~layout_mask(layout, width, height)
    unexplained = np.array([np.count_nonzero(f & outside) for f in raw]) / (width * height)  # frame by frame:
    per_frame = np.array([np.count_nonzero(f) for f in raw])  # no clip-sized temporaries
    mask = dilate(raw)
    coverage = np.array([cv2.countNonZero(m) for m in mask]) / (width * height)
    stats = {
        "frames": int(frames),
        "frames_without_hud": int((per_frame == 0).sum()),
        "hud_coverage": round(float(coverage.mean()), 6),
        "hud_coverage_max": round(float(coverage.max()), 6),
        "raw_difference_fraction": round(float(raw.mean()), 6),
        "outside_layout_max_fraction": round(float(unexplained.max()), 6),
        "mad_outside_mask_lossless": mad_outside(hud, clean, mask),
        "dilation_px": DILATION_PX,
    }
    if stats["frames_without_hud"]:
        return PairCheck("rejected", "hud_missing", None, None, stats)
    if stats["outside_layout_max_fraction"] > DESYNC_FRACTION:
        return PairCheck("rejected", "desync", None, None, stats)
    if stats["hud_coverage"] > MAX_COVERAGE:
        return PairCheck("rejected", "hud_too_large", None, None, stats)
    return PairCheck("ok", "", mask, raw, stats)
