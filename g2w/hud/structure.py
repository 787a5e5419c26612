"""Internal structure of extracted assets: status-bar geometry, and inventory separation (E.2).

`detect_bars` finds the coloured fill bars of a status panel: long, mostly solid runs of
saturated opaque pixels; pieces split by segment ticks are merged. The topmost is health ("hp"), the next stamina ("stm").

`split_inventory` separates a hotbar into a clean background bar plus item icons. The slot row
is found from the bar's vertical edges: their column profile repeats with the slot pitch
(autocorrelation peak), and the phase that puts the strongest edges on slot borders fixes the
slot cells. The empty-slot template is the slot that looks most like the others and has the
least detail inside; it is trusted only when at least one other slot matches it (so it is the
repeated background, not an item). The clean bar tiles that template into every slot; each slot
that differs from it yields a conservative icon: the pixels that differ strongly, opened, eroded
by a pixel, and kept as the largest component. Icons smaller than 8x8 or with an aspect ratio
outside 0.15-5.8 are dropped. Rows whose period or template is not clear come back skipped with
a reason, and never enter the pool of separated inventories.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from g2w.hud.profile import ICON_ASPECT, ICON_MIN_PX

BAR_MIN_WIDTH = 24
BAR_MIN_HEIGHT = 3  # thinner runs are outlines and underlines, not fill bars
BAR_MIN_ELONGATION = 3.0
BAR_MIN_SOLIDITY = 0.6
SATURATION_MIN = 0.28 * 255
PERIOD_MIN_PX = 12
PERIODICITY_MIN = 0.35  # normalized autocorrelation at the slot pitch
MIN_SLOTS = 3
SLOT_INSET = 0.12  # of the slot size: the inner part compared between slots (skips borders)
EMPTY_MATCH = 14.0  # mean absolute difference (levels) under which two slots look the same
ICON_DIFF = 40  # per-pixel difference (levels) that marks an icon pixel, conservative


def detect_bars(rgba: np.ndarray, kinds: tuple[str, ...] = ("hp", "stm")) -> list[dict]:
    """Fill bars of a status panel as [{"kind", "box": [x1, y1, x2, y2]}], top first.

    `kinds` names the bars in order from the top (a lone stamina bar passes ("stm",)).
    """
    hsv = cv2.cvtColor(np.ascontiguousarray(rgba[..., :3]), cv2.COLOR_RGB2HSV)
    mask = ((hsv[..., 1] >= SATURATION_MIN) & (hsv[..., 2] >= 60) & (rgba[..., 3] >= 128)).astype(np.uint8)
    # a lighter highlight row can split a bar across rows: close vertical gaps only, so the bar
    # never fuses with a neighbouring icon or the panel's outline
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 1), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    parts = sorted(([int(v) for v in stats[k]] for k in range(1, count)), key=lambda p: (p[1], p[0]))
    # segment ticks cut a bar into pieces side by side: merge pieces on the same rows
    merged: list[list[int]] = []  # [x1, y1, x2, y2, area]
    for x, y, w, h, area in parts:
        for m in merged:
            if abs(m[1] - y) <= 1 and abs(m[3] - (y + h)) <= 1 and (x - m[2] <= 3 and m[0] - (x + w) <= 3):
                m[0], m[1], m[2], m[3], m[4] = (
                    min(m[0], x),
                    min(m[1], y),
                    max(m[2], x + w),
                    max(m[3], y + h),
                    m[4] + area,
                )
                break
        else:
            merged.append([x, y, x + w, y + h, area])
    bars = []
    for x1, y1, x2, y2, area in merged:
        w, h = x2 - x1, y2 - y1
        if (
            w >= BAR_MIN_WIDTH
            and h >= BAR_MIN_HEIGHT
            and w >= BAR_MIN_ELONGATION * h
            and area >= BAR_MIN_SOLIDITY * w * h
        ):
            bars.append([x1, y1, x2, y2])
    bars = sorted(
        sorted(bars, key=lambda b: b[0] - b[2])[: len(kinds)], key=lambda b: (b[1], b[0])
    )  # widest, top first
    return [{"kind": kind, "box": box} for kind, box in zip(kinds, bars)]


@dataclass
class InventorySplit:
    ok: bool
    reason: str = ""
    bar: np.ndarray | None = None  # clean RGBA bar
    slots: list[list[int]] = field(default_factory=list)  # inner slot boxes in bar pixels
    icons: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (slot index, RGBA icon)
    diagnostics: dict = field(default_factory=dict)


def _slot_pitch(profile: np.ndarray) -> tuple[int, float]:
    """(period, normalized autocorrelation) of a column profile."""
    p = profile - profile.mean()
    denom = float((p * p).sum())
    best = (0, 0.0)
    if denom <= 0:
        return best
    for lag in range(PERIOD_MIN_PX, len(p) // MIN_SLOTS + 1):
        ac = float((p[:-lag] * p[lag:]).sum()) / denom
        if ac > best[1]:
            best = (lag, ac)
    return best


def split_inventory(rgba: np.ndarray) -> InventorySplit:
    gray = cv2.cvtColor(np.ascontiguousarray(rgba[..., :3]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    gray *= rgba[..., 3].astype(np.float32) / 255.0
    h, w = gray.shape
    edges_x = np.abs(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3))
    col_profile = edges_x.mean(axis=0)
    period, periodicity = _slot_pitch(col_profile)
    diag = {"period": period, "periodicity": round(periodicity, 4)}
    if period == 0 or periodicity < PERIODICITY_MIN:
        return InventorySplit(False, "no_repeated_slot_row", diagnostics=diag)
    phase = max(range(period), key=lambda o: col_profile[o::period].sum())
    borders = list(range(phase, w, period))
    cells = [(a, b) for a, b in zip(borders, borders[1:]) if b - a == period]
    # rows where slot borders are drawn: strong vertical edges at the border columns
    border_rows = edges_x[:, borders].mean(axis=1)
    rows = np.flatnonzero(border_rows >= 0.5 * border_rows.max()) if border_rows.max() > 0 else []
    if len(cells) < MIN_SLOTS or len(rows) < PERIOD_MIN_PX // 2:
        return InventorySplit(False, "too_few_slots", diagnostics={**diag, "cells": len(cells)})
    y1, y2 = int(rows[0]), int(rows[-1]) + 1
    inset_x, inset_y = max(1, round(SLOT_INSET * period)), max(1, round(SLOT_INSET * (y2 - y1)))
    inner = [[a + inset_x, y1 + inset_y, b - inset_x, y2 - inset_y] for a, b in cells]
    crops = np.stack([rgba[b[1] : b[3], b[0] : b[2]].astype(np.float32) for b in inner])  # (n, h, w, 4)
    n = len(crops)
    dist = np.abs(crops[:, None] - crops[None, :]).mean(axis=(2, 3, 4))  # (n, n)
    detail = np.array([cv2.Laplacian(c[..., :3].mean(axis=2), cv2.CV_32F).std() for c in crops])
    matches = (dist < EMPTY_MATCH).sum(axis=1) - 1  # other slots that look the same
    order = np.lexsort((detail, -matches))  # most matched, then least detailed
    template = int(order[0])
    diag.update(slots=n, template=template, template_matches=int(matches[template]))
    if matches[template] < 1:
        return InventorySplit(False, "no_confident_empty_slot", diagnostics=diag)
    bar = rgba.copy()
    tx1, ty1, tx2, ty2 = inner[template]
    tile = rgba[ty1:ty2, tx1:tx2]
    icons = []
    kernel = np.ones((3, 3), np.uint8)
    for k, (x1, sy1, x2, sy2) in enumerate(inner):
        if dist[template, k] >= EMPTY_MATCH:
            diff = np.abs(rgba[sy1:sy2, x1:x2].astype(np.int16) - tile.astype(np.int16)).max(axis=2)
            mask = cv2.erode(cv2.morphologyEx((diff > ICON_DIFF).astype(np.uint8), cv2.MORPH_OPEN, kernel), kernel)
            count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
            if count > 1:
                big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
                x, y, iw, ih = (int(v) for v in stats[big, :4])
                if iw >= ICON_MIN_PX and ih >= ICON_MIN_PX and ICON_ASPECT[0] <= iw / ih <= ICON_ASPECT[1]:
                    icon = rgba[sy1 + y : sy1 + y + ih, x1 + x : x1 + x + iw].copy()
                    icon[..., 3] = np.where(labels[y : y + ih, x : x + iw] == big, icon[..., 3], 0)
                    icons.append((k, icon))
        bar[sy1:sy2, x1:x2] = tile
    diag["icons"] = len(icons)
    return InventorySplit(True, "", bar, inner, icons, diag)
