"""A deterministic, pixel-based judge for cases with a clean reference (our addition).

It answers in exactly the MLLM judge's schema, from the same canonical frames and mapped boxes,
using the clean reference R that the MLLM never sees. With O the original (HUD) frame and E
the edit, all on the canonical canvas:

- **Overlay support.** Inside an element's box (grown by a few pixels so its outer edge is
  included), the pixels where the HUD changed the picture: max-channel |O - R| >=
  `support_level`. Too few means the element cannot be told from the scene: "uncertain".
- **Removal.** What makes a HUD element recognizable is its structure: borders, strokes,
  contours. The overlay's edge field is grad(O) - grad(R); its share still found in the edit
  is rho = <grad(E) - grad(R), grad(O) - grad(R)> / |grad(O) - grad(R)|^2, summed near the
  support (1: untouched, 0: gone, ~0.5: half faded). A smooth or wrong fill has edges of its
  own but not the overlay's, so it scores near 0, which a per-pixel colour test cannot tell
  from a translucent remnant. The element is "present" when rho >= `faint_rho` (a faint copy
  of the whole) or when cells of a `tiles` x `tiles` grid whose rho >= `survive_rho` hold
  `present_share` of the edge energy (a surviving part of a multi-part element). Otherwise
  "removed".
- **Artifact** (removed elements): mean |E - R| of lightly blurred frames over the overlay's
  footprint (blur suppresses codec noise): "none" up to `fill_none_mae`, "major" from
  `fill_major_mae`, "minor" between.
- **Preservation.** Outside all boxes (grown by `bg_dilate_px` for resampling and codec
  bleed): the mean absolute luma difference of lightly blurred frames, the share of pixels
  whose luma moved by more than `bg_change_level`, and the colour shift (largest per-channel
  mean signed difference), measured against O and against R (two encodes of the same scene
  there) and taken from the closer of the two. "preserved" when all three are small, "major_change" when any is large,
  "invalid" when too little of the frame lies outside the boxes.

Thresholds come from `g2w.evaluate.calibration`, which measures these statistics on synthetic
pairs of several kinds. Overlapping elements share
support pixels, so an element can be called present because its neighbour survived; with only
a union mask per frame this judge cannot separate them.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

from g2w.cases.canvas import Box
from g2w.evaluate.canonical_frames import read_canonical
from g2w.evaluate.judges.base import JudgeNotApplicable, JudgeReply, JudgeRequest
from g2w.video.errors import VideoError
from g2w.video.probe import probe
from g2w.video.sources import source_id

VERSION = 1


@dataclass(frozen=True)
class Thresholds:
    # overlay support and its edge energy
    support_level: float = 24.0  # max-channel |O - R| at which a pixel belongs to the overlay
    min_support_px: int = 12  # fewer support pixels: the element cannot be seen, "uncertain"
    edge_pad_px: int = 3  # the box grown by this much, so the overlay's outer edge is inside
    ring_px: int = 12  # width of the ring around the element where codec noise is measured
    tiles: int = 4  # the region is cut into tiles x tiles cells to find surviving parts
    tile_min_share: float = 0.02  # cells with less of the edge energy are ignored
    # removal
    survive_rho: float = 0.5  # a cell whose overlay edges are at least this present survives
    present_share: float = 0.10  # present when surviving cells hold this share of edge energy
    faint_rho: float = 0.12  # ... or when the whole element survives at least this faintly
    # artifact of a removed element: mean |E - R| (lightly blurred) over the overlay footprint
    fill_none_mae: float = 6.0
    fill_major_mae: float = 18.0
    # preservation outside all boxes
    bg_dilate_px: int = 4
    bg_change_level: float = 24.0
    bg_preserved_mae: float = 4.0
    bg_preserved_changed: float = 0.005
    bg_preserved_bias: float = 3.0
    bg_major_mae: float = 5.5
    bg_major_changed: float = 0.05
    bg_major_bias: float = 15.0
    bg_min_outside: float = 0.02


LUMA = np.array([0.299, 0.587, 0.114], np.float32)


def _soft(rgb: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(rgb.astype(np.float32), (3, 3), 1.0)


def _gradients(rgb: np.ndarray) -> np.ndarray:
    """Forward differences along x and y of every channel: (H, W, 6) float32."""
    g = np.zeros((*rgb.shape[:2], 6), np.float32)
    g[:, :-1, :3] = rgb[:, 1:] - rgb[:, :-1]
    g[:-1, :, 3:] = rgb[1:] - rgb[:-1]
    return g


def _confidence(value: float, threshold: float) -> float:
    """0.5 at the threshold, rising to 0.99 four times away from it (log scale); for audits."""
    value, threshold = max(value, 1e-6), max(threshold, 1e-6)
    return round(min(0.99, 0.5 + 0.5 * abs(math.log(value / threshold)) / math.log(4)), 3)


def _triggered_confidence(checks: list[tuple[float, float]]) -> float:
    """Confidence of an "any of these reached its threshold" decision: the clearest trigger."""
    return max(_confidence(v, t) for v, t in checks if v >= t)


def element_stats(o: np.ndarray, e: np.ndarray, r: np.ndarray, box: Box, th: Thresholds) -> dict:
    """Measurements for one element: support size, how much of the overlay's own edge
    structure survives in E (overall and per cell), and the fill error against R beyond the
    codec noise measured around the element."""
    h, w = o.shape[:2]
    p = th.ring_px
    x1, y1, x2, y2 = max(0, box[0] - p), max(0, box[1] - p), min(w, box[2] + p), min(h, box[3] + p)
    ob, eb, rb = (a[y1:y2, x1:x2].astype(np.float32) for a in (o, e, r))
    in_box = np.zeros(ob.shape[:2], bool)
    q = th.edge_pad_px
    in_box[max(0, box[1] - q - y1) : box[3] + q - y1, max(0, box[0] - q - x1) : box[2] + q - x1] = True
    overlay = np.abs(ob - rb).max(axis=2) >= th.support_level
    support = (overlay & in_box).astype(np.uint8)
    n = int(support.sum())
    stats = {
        "support_px": n,
        "edge_energy": 0.0,
        "rho": 0.0,
        "surviving_share": 0.0,
        "fill_mae": 0.0,
        "ring_noise": 0.0,
    }
    if n == 0:
        return stats
    footprint = cv2.dilate(support, np.ones((3, 3), np.uint8)) > 0
    zone = (cv2.dilate(support, np.ones((5, 5), np.uint8)) > 0) & in_box  # where the overlay's edges lie
    g_o, g_r, g_e = _gradients(ob), _gradients(rb), _gradients(eb)
    d_o = g_o - g_r
    # Weight by the edges the overlay adds (|grad O|^2 - |grad R|^2 > 0): scene edges that an
    # opaque widget hides are not part of the widget, and a fill that fails to restore them
    # is judged as an artifact, not as a surviving widget.
    weight = np.where(zone, np.maximum(0.0, (g_o * g_o).sum(axis=2) - (g_r * g_r).sum(axis=2)), 0.0)
    proj = ((g_e - g_r) * d_o).sum(axis=2) / np.maximum((d_o * d_o).sum(axis=2), 1e-6)
    agree = weight * np.clip(proj, -1.0, 1.0)  # symmetric, so random edges average out
    total = float(weight.sum())
    stats["edge_energy"] = total
    if total > 0:
        stats["rho"] = float(agree.sum()) / total
        surviving = 0.0
        by, bx = np.nonzero(in_box)
        ys = np.linspace(by.min(), by.max() + 1, th.tiles + 1).astype(int)
        xs = np.linspace(bx.min(), bx.max() + 1, th.tiles + 1).astype(int)
        for a, b in zip(ys[:-1], ys[1:]):
            for c, d in zip(xs[:-1], xs[1:]):
                cell = float(weight[a:b, c:d].sum())
                if cell >= th.tile_min_share * total and float(agree[a:b, c:d].sum()) / cell >= th.survive_rho:
                    surviving += cell
        stats["surviving_share"] = surviving / total
    soft_o, soft_e, soft_r = _soft(ob), _soft(eb), _soft(rb)
    stats["fill_mae"] = float(np.abs(soft_e - soft_r).mean(axis=2)[footprint].mean())
    # Codec noise between two encodings of the same scene: O against R just around the element.
    ring = cv2.dilate(footprint.astype(np.uint8), np.ones((2 * p + 1, 2 * p + 1), np.uint8)) > 0
    ring &= ~(cv2.dilate(footprint.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0) & ~overlay
    if ring.any():
        stats["ring_noise"] = float(np.abs(soft_o - soft_r).mean(axis=2)[ring].mean())
    return stats


def element_verdict(s: dict, th: Thresholds) -> dict:
    if s["support_px"] < th.min_support_px or s["edge_energy"] <= 0:
        return {
            "removal": "uncertain",
            "artifact": "not_applicable",
            "confidence": 0.5,
            "note": f"overlay differs from the reference on only {s['support_px']} px",
        }
    rho, share = s["rho"], s["surviving_share"]
    if rho >= th.faint_rho or share >= th.present_share:
        conf = _triggered_confidence([(rho, th.faint_rho), (share, th.present_share)])
        return {
            "removal": "present",
            "artifact": "not_applicable",
            "confidence": conf,
            "note": f"overlay edges {max(rho, 0):.0%} intact; surviving parts hold {share:.0%}",
        }
    # The fill error beyond what two encodings of the same scene differ by here.
    mae = max(0.0, s["fill_mae"] - s["ring_noise"])
    if mae <= th.fill_none_mae:
        artifact, conf = "none", _confidence(mae, th.fill_none_mae)
    elif mae >= th.fill_major_mae:
        artifact, conf = "major", _confidence(mae, th.fill_major_mae)
    else:
        artifact, conf = "minor", 0.6
    conf = min(conf, _confidence(max(rho, share, 1e-3), th.faint_rho))
    return {
        "removal": "removed",
        "artifact": artifact,
        "confidence": conf,
        "note": f"overlay edges {max(rho, 0):.0%} intact; fill differs from reference by {mae:.1f} beyond codec noise",
    }


def frame_stats(o: np.ndarray, e: np.ndarray, r: np.ndarray, boxes: list[Box], th: Thresholds) -> dict:
    """Differences between E and the scene outside every (grown) box: mean, bias, changed share.

    Outside the boxes O and R show the same scene through two different encodes, and at low
    bitrates those two differ visibly by themselves. E is compared with both and the closer
    one counts (`against`), so an edit is not blamed for the source's own codec noise.
    """
    h, w = o.shape[:2]
    inside = np.zeros((h, w), bool)
    d = th.bg_dilate_px
    for x1, y1, x2, y2 in boxes:
        inside[max(0, y1 - d) : y2 + d, max(0, x1 - d) : x2 + d] = True
    outside = ~inside
    if not outside.any():
        return {"outside_fraction": 0.0, "mae": 0.0, "bias": 0.0, "changed": 0.0, "against": "original"}
    soft_e = _soft(e)
    best = None
    for name, frame in (("original", o), ("reference", r)):
        signed = (soft_e - _soft(frame))[outside]  # (n, 3)
        # Structure is judged on luma: yuv420 keeps it at full resolution, while chroma is
        # halved and loses detail at every re-encode, which is codec loss, not new content.
        diff = np.abs(signed @ LUMA)
        stats = {
            "outside_fraction": float(outside.mean()),
            "mae": float(diff.mean()),
            "bias": float(np.abs(signed.mean(axis=0)).max()),
            "changed": float((diff > th.bg_change_level).mean()),
            "against": name,
        }
        if best is None or stats["mae"] < best["mae"]:
            best = stats
    return best


def frame_verdict(s: dict, th: Thresholds) -> dict:
    if s["outside_fraction"] < th.bg_min_outside:
        return {
            "preservation": "invalid",
            "confidence": 0.9,
            "note": f"only {s['outside_fraction']:.1%} of the frame lies outside the boxes",
        }
    mae, bias, changed = s["mae"], s["bias"], s["changed"]
    note = f"outside boxes vs {s['against']}: luma diff {mae:.1f}, colour shift {bias:.1f}, {changed:.2%} px changed"
    if mae <= th.bg_preserved_mae and changed <= th.bg_preserved_changed and bias <= th.bg_preserved_bias:
        conf = min(_confidence(mae, th.bg_preserved_mae), _confidence(max(changed, 1e-4), th.bg_preserved_changed))
        return {"preservation": "preserved", "confidence": conf, "note": note}
    major = [(mae, th.bg_major_mae), (changed, th.bg_major_changed), (bias, th.bg_major_bias)]
    if any(v >= t for v, t in major):
        conf = _triggered_confidence(major)
        return {"preservation": "major_change", "confidence": conf, "note": note}
    return {"preservation": "minor_change", "confidence": 0.6, "note": note}


def judge_frames(plan, source: dict, edited: dict, reference: dict, th: Thresholds) -> dict:
    """The judgment for one video from canonical frames keyed by frame index."""
    elements, frames = [], []
    for s in plan.samples:
        o, e, r = source[s.source_index], edited[s.edited_index], reference[s.source_index]
        for el in s.elements:
            verdict = element_verdict(element_stats(o, e, r, el.box, th), th)
            elements.append({"sample_id": s.sample_id, "element_id": el.element_id, **verdict})
        verdict = frame_verdict(frame_stats(o, e, r, [el.box for el in s.elements], th), th)
        frames.append({"sample_id": s.sample_id, **verdict})
    return {"elements": elements, "frames": frames}


@dataclass
class ReferenceJudge:
    thresholds: Thresholds = field(default_factory=Thresholds)

    name = "reference"
    uses_prompt = False

    def settings(self) -> dict:
        return {"judge": self.name, "version": VERSION, "thresholds": asdict(self.thresholds)}

    def cache_inputs(self, request: JudgeRequest) -> dict:
        ref = request.case.reference
        if not ref:
            raise JudgeNotApplicable(
                "no_reference",
                f"{request.case.case_id}: the reference judge needs a clean reference; this case has none",
            )
        try:
            return {"reference": source_id(ref)}
        except OSError as exc:
            raise JudgeNotApplicable("bad_reference", f"{ref}: {exc}") from exc

    def call(self, request: JudgeRequest, attempt: int) -> JudgeReply:
        plan, case = request.plan, request.case
        src_idx = [s.source_index for s in plan.samples]
        try:
            info = probe(case.reference, verify=False)
            if info.frame_count < max(src_idx, default=0) + 1:
                raise JudgeNotApplicable(
                    "bad_reference", f"{case.reference}: {info.frame_count} frames, needs {max(src_idx) + 1}"
                )
            reference = read_canonical(case.reference, src_idx, plan.canvas)
        except VideoError as exc:
            raise JudgeNotApplicable("bad_reference", str(exc)) from exc
        try:
            source = read_canonical(case.source, src_idx, plan.canvas)
            edited = read_canonical(request.edited_path, [s.edited_index for s in plan.samples], plan.canvas)
        except (VideoError, IndexError) as exc:  # changed on disk since its evidence was built
            raise JudgeNotApplicable("frames_unreadable", str(exc)) from exc
        judgment = judge_frames(plan, source, edited, reference, self.thresholds)
        return JudgeReply(json.dumps(judgment), {"deterministic": True})
