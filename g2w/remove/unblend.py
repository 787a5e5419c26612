"""Un-blending: recover the world behind a static translucent HUD layer instead of guessing it.

Where a HUD pixel is a fixed blend over a moving world, `I' = a * C + (1 - a) * I` (opacity `a`,
layer colour `C`, world `I`), the observed pixel is an affine function of the world at that
pixel: `I' = s * I + b` with `s = 1 - a` and `b = a * C`, the same `s` for the three channels.
The idea goes back to multi-image watermark estimation (Dekel et al., "On the Effectiveness of
Visible Watermarks", CVPR 2017): a layer that stays put over many different backgrounds can be
estimated from them. Here the backgrounds are the frames of one chunk, and the world behind each
frame is first estimated by the propagation fill (`g2w.remove.propagate`): its estimate `J` is
good on average but blurred or misplaced in places. Per pixel, `s` and `b` are then fitted to
`(J, I')` over every frame the pixel is in the hole, by least squares reweighted against frames
the fill got wrong (`fit_layer`); once they are known, the world is `I = (I' - b) / s` from the
pixel's own observation in each frame: exact up to quantisation, where the fill was a guess.

A pixel is inverted only when the fit is trustworthy (`Unblend`): it sits in the hole in most
frames of the chunk (a static element: a moving one is a different blend in every frame), the
world behind it moves (the fill's estimate varies over the chunk, or nothing can be told from
the layer), the fitted opacity is at most `ceiling` (quantisation error grows as `1 / (1 - a)`;
an opaque widget has nothing of the world left to recover), the layer colour is a colour, and
the fit explains the observations. Every other hole pixel keeps the fill's value, and pixels
outside the hole are never touched.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unblend:
    """When a hole pixel is un-blended rather than filled.

    `ceiling`: the highest opacity inverted (at 0.85 one grey level of quantisation becomes
    about 7 in the recovered world). `static_share`: the share of the chunk's frames a pixel
    must be in the hole (a static element). `min_frames`: fewer frames cannot separate opacity
    from colour. Only fill colours traced over at most `fit_steps` frames enter the fit (longer
    traces and Telea's fill are guesses); a pixel of the element left with too few of them (the
    middle of a wide band, which the world reaches only after many frames) takes its layer from
    the pixels fitted within `spread_px` of it (a panel's opacity and colour vary smoothly). `min_world_std`: grey levels of temporal spread the fill's world needs at the
    pixel (a still world makes `s` and `b` indistinguishable). `max_residual`: the fit's robust
    residual, as a share of the world's spread seen through the layer, above which the pixel is
    not a fixed blend (a moving element, an animated widget, a fill gone wrong).
    """

    ceiling: float = 0.85
    static_share: float = 0.8
    min_frames: int = 8
    min_world_std: float = 4.0
    max_residual: float = 0.35
    max_error: float = 4.0  # ... and above this many grey levels of the recovered world
    iterations: int = 4
    fit_steps: int = 6  # fill colours that travelled further than this many frames do not enter the fit
    spread_px: int = 64  # a pixel without enough such frames takes the layer of fitted ones this close
    agree_s: float = 0.03  # ... when their `s` (1 - opacity) agree within this standard deviation ...
    agree_b: float = 4.0  # ... and their `b` (opacity x colour) within this many grey levels


def fit_layer(
    observed: np.ndarray, world: np.ndarray, valid: np.ndarray, iterations: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel, `s` (n,), `b` (n, 3), the robust residual (n,) and the world's spread (n,) of
    the fit `observed = s * world + b` over frames.

    `observed`, `world`: (n, T, 3) float32 (n pixels, T frames); `valid`: (n, T) bool, the
    frames that count. Weighted least squares with one `s` for all channels and a `b` per
    channel; after each fit, frames whose residual is far above the pixel's median residual
    lose weight (`w = 1 / max(1, r / (2 median r))`), so the frames the fill got wrong do not
    bend the line. The residual returned is the weighted mean absolute one, in grey levels.
    """
    weight = valid.astype(np.float32)
    s = np.ones(len(observed), np.float32)
    b = np.zeros((len(observed), 3), np.float32)
    residual = np.zeros(len(observed), np.float32)
    for _ in range(max(1, iterations)):
        total = np.maximum(weight.sum(1), 1e-6)  # (n,)
        wx = weight[..., None]
        mean_w = (wx * world).sum(1) / total[:, None]  # (n, 3)
        mean_o = (wx * observed).sum(1) / total[:, None]
        dw = world - mean_w[:, None]
        do = observed - mean_o[:, None]
        var = (wx * dw * dw).sum((1, 2))
        s = np.where(var > 1e-6, (wx * dw * do).sum((1, 2)) / np.maximum(var, 1e-6), 1.0).astype(np.float32)
        b = mean_o - s[:, None] * mean_w
        r = np.abs(observed - s[:, None, None] * world - b[:, None]).mean(2)  # (n, T)
        masked = np.where(valid, r, np.nan)
        med = np.ones(len(r))
        rows = valid.any(1)  # a row with no valid frame has no median (and would warn)
        med[rows] = np.nanmedian(masked[rows], axis=1)
        scale = np.maximum(2 * np.nan_to_num(med, nan=1.0), 0.5)
        weight = valid / np.maximum(1.0, r / scale[:, None])
        residual = (weight * r).sum(1) / np.maximum(weight.sum(1), 1e-6)
    total = np.maximum(valid.sum(1), 1)
    mean_w = (valid[..., None] * world).sum(1) / total[:, None]
    spread = np.sqrt((valid[..., None] * (world - mean_w[:, None]) ** 2).sum((1, 2)) / (3 * total))
    return s, b, residual.astype(np.float32), spread.astype(np.float32)


@dataclass
class ChunkReport:
    """What un-blending did to one chunk's hole pixels (counted once per pixel, not per frame)."""

    hole_px: int = 0  # pixels in the hole in any frame
    inverted_px: int = 0
    moving_px: int = 0  # in the hole too rarely: not a static element
    unseen_px: int = 0  # too few frames where the fill saw the world behind (a short clip, a still camera)
    still_world_px: int = 0  # the world behind does not move
    opaque_px: int = 0  # opacity above the ceiling
    misfit_px: int = 0  # not a fixed blend

    def add(self, other: ChunkReport) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def reason(self) -> str:
        """One line: the share inverted and why the rest was left to the fill."""
        if not self.hole_px:
            return "no hole pixels"
        parts = [
            f"{name[:-3].replace('_', ' ')} {getattr(self, name) / self.hole_px:.0%}"
            for name in ("moving_px", "unseen_px", "still_world_px", "opaque_px", "misfit_px")
            if getattr(self, name)
        ]
        return f"un-blended {self.inverted_px / self.hole_px:.0%} of hole pixels" + (
            f"; filled: {', '.join(parts)}" if parts else ""
        )


def _spread_layer(
    s: np.ndarray,
    b: np.ndarray,
    fitted: np.ndarray,
    ys: np.ndarray,
    xs: np.ndarray,
    shape: tuple[int, int],
    reach: int,
    agree_s: float,
    agree_b: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`s`, `b` at every pixel (ys, xs), the unfitted ones the mean of the fitted pixels within
    `reach` px (a box) where those agree (standard deviation of `s` at most `agree_s`, of `b` at
    most `agree_b` grey levels: one smooth panel, not scattered fits of a widget that is no
    blend); returns them and where a layer was known or found."""
    h, w = shape
    planes = np.zeros((h, w, 7), np.float32)
    at = (ys[fitted], xs[fitted])
    planes[at + (0,)] = 1
    planes[at + (1,)] = s[fitted]
    planes[at + (2,)] = s[fitted] ** 2
    planes[at + (3,)] = (b[fitted] ** 2).mean(1)
    planes[ys[fitted], xs[fitted], 4:] = b[fitted]
    k = 2 * reach + 1
    pooled = np.dstack([cv2.boxFilter(planes[..., c], -1, (k, k), normalize=False) for c in range(7)])[ys, xs]
    weight = np.maximum(pooled[:, 0], 1e-6)
    mean_s, mean_b = pooled[:, 1] / weight, pooled[:, 4:] / weight[:, None]
    var_s = pooled[:, 2] / weight - mean_s**2
    var_b = pooled[:, 3] / weight - (mean_b**2).mean(1)
    found = fitted | ((pooled[:, 0] >= 1) & (var_s <= agree_s**2) & (var_b <= agree_b**2))
    s = np.where(fitted, s, mean_s).astype(np.float32)
    b = np.where(fitted[:, None], b, mean_b).astype(np.float32)
    return s, b, found


def unblend_chunk(
    frames: list[np.ndarray],
    holes: list[np.ndarray],
    filled: list[np.ndarray],
    steps: list[np.ndarray],
    rule: Unblend = Unblend(),
) -> tuple[list[np.ndarray], ChunkReport]:
    """`filled` (the fill's frames for `frames` with `holes`, and its `steps` maps: `fill_chunk`)
    with the hole pixels of static translucent layers replaced by the inverted blend; frames are
    copied only where changed. Returns the frames and what was done (`ChunkReport`)."""
    report = ChunkReport()
    n = len(frames)
    if not n:
        return filled, report
    count = np.zeros(holes[0].shape, np.int32)
    for h in holes:
        count += h > 0
    report.hole_px = int(np.count_nonzero(count))
    if not report.hole_px:
        return filled, report
    need = max(rule.min_frames, int(np.ceil(rule.static_share * n)))
    candidate = count >= need
    report.moving_px = int(np.count_nonzero((count > 0) & (count < int(np.ceil(rule.static_share * n)))))
    report.unseen_px = report.hole_px - report.moving_px - int(np.count_nonzero(candidate))
    ys, xs = np.nonzero(candidate)
    if not len(ys):
        return filled, report
    valid = np.stack([h[ys, xs] > 0 for h in holes], 1)  # (k, T)
    travelled = np.stack([st[ys, xs] for st in steps], 1)
    reliable = valid & (travelled <= rule.fit_steps)
    observed = np.stack([f[ys, xs] for f in frames], 1).astype(np.float32)  # (k, T, 3)
    world = np.stack([f[ys, xs] for f in filled], 1).astype(np.float32)
    s, b, residual, spread = fit_layer(observed, world, reliable, rule.iterations)
    enough = reliable.sum(1) >= rule.min_frames
    moves = spread >= rule.min_world_std
    fits = residual <= np.minimum(rule.max_residual * spread, rule.max_error) * np.maximum(s, 1e-3)
    fitted = enough & moves & fits
    # a pixel without a fit of its own (too few frames, or a world too still to tell) takes its
    # neighbours' layer; one whose own fit failed is not a fixed blend and keeps the fill
    s, b, found = _spread_layer(s, b, fitted, ys, xs, count.shape, rule.spread_px, rule.agree_s, rule.agree_b)
    known = fitted | (found & ~(enough & moves & ~fits))
    alpha = 1 - s
    with np.errstate(divide="ignore", invalid="ignore"):
        colour = np.where(alpha[:, None] > 1e-3, b / np.maximum(alpha[:, None], 1e-3), 0)
    # the recovered world must move like a world: a static opaque glyph next to a panel would
    # otherwise take the panel's layer and come back as a glyph
    total = np.maximum(valid.sum(1), 1)
    mean_o = (valid[..., None] * observed).sum(1) / total[:, None]
    seen_std = np.sqrt((valid[..., None] * (observed - mean_o[:, None]) ** 2).sum((1, 2)) / (3 * total))
    sane = (
        (alpha >= -0.05)
        & (colour >= -16).all(1)
        & (colour <= 271).all(1)
        & (seen_std >= rule.min_world_std * np.maximum(s, 1e-3))
    )
    opaque = known & (alpha > rule.ceiling)
    ok = known & ~opaque & sane
    report.unseen_px += int(np.count_nonzero(~known & ~enough))
    report.still_world_px = int(np.count_nonzero(~known & enough & ~moves))
    report.misfit_px = int(np.count_nonzero(~known & enough & moves) + np.count_nonzero(known & ~opaque & ~sane))
    report.opaque_px = int(np.count_nonzero(opaque))
    report.inverted_px = int(np.count_nonzero(ok))
    if not report.inverted_px:
        return filled, report
    ys, xs, s, b, valid = ys[ok], xs[ok], s[ok], b[ok], valid[ok]
    out = list(filled)
    for t in range(n):
        here = valid[:, t]
        if not here.any():
            continue
        y, x = ys[here], xs[here]
        recovered = (frames[t][y, x].astype(np.float32) - b[here]) / s[here, None]
        out[t] = filled[t].copy() if out[t] is filled[t] else out[t]
        out[t][y, x] = np.clip(recovered + 0.5, 0, 255).astype(np.uint8)
    return out, report
