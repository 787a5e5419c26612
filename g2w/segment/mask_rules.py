"""The segmenter's mask rules: what is added to (or taken from) the refiner's mask, one rule at a time.

The network and its full-resolution refiner decide most pixels; a few hand rules, each reading
evidence the refinement already computed for its statistics window (`fullres.FullResTiles`),
adjust the result. Every rule has the same shape (`MaskRule`): it takes the mask so far and the
frame's evidence and returns the new mask, never writing into the one it was given. Rules run in
the order configured, a comma-separated list of names, each with an optional value after a
colon (`parse_rules`):

- `centre_mark`: the window's centre mark (a crosshair the network cannot see,
  `centre_mark`) is painted in;
- `coarse_support:LEVEL`: the model-resolution probability's regions at or above LEVEL that hold
  a pixel of the mask join it (`supported_mask`): the soft parts the refiner drops (a translucent
  panel's edge, faint letters) that the coarse map still covers;
- `support_motion:RATIO`: of what the rule before it added, the parts that move more than RATIO
  times the world near them are dropped again (`support_motion`): the coarse map bleeds onto the
  world beside a widget, and that world moves like the world anywhere;
- `still_detail`: the still, detailed pixels of the window's candidate tiles that touch the mask
  join it (`still_detail`): the glyphs of a text line the network found only in part.

A rule whose evidence is missing (no refinement, or one made for another size) returns the mask
unchanged. `g2w detect` writes the mask with `DETECT_RULES`; removers use `REMOVAL_RULES`, which
adds the rules whose extra area pays off in removal (docs/results/mask_rules.md) but would inflate the
detector's boxes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import cv2
import numpy as np

from g2w.segment.support_motion import RATIO, keep_still_support

if TYPE_CHECKING:
    from g2w.segment.fullres import FullResTiles
    from g2w.segment.predict import FramePrediction


@dataclass(frozen=True)
class RuleInput:
    """What a rule may read besides the mask: the frame's prediction at the video's size, and the
    mask as it was before the previous rule ran (for a rule that filters another's additions)."""

    prediction: FramePrediction
    width: int
    height: int
    previous: np.ndarray

    @property
    def full_res(self) -> FullResTiles | None:
        """The prediction's full-resolution refinement when it was made for this size, else None."""
        fr = self.prediction.full_res
        return fr if fr is not None and (fr.width, fr.height) == (self.width, self.height) else None

    def ui_u8(self) -> np.ndarray:
        """The model-resolution UI probability quantised to uint8 (1/255 steps)."""
        return np.clip(self.prediction.ui * 255 + 0.5, 0, 255).astype(np.uint8)


class MaskRule(Protocol):
    """One step of the mask: full-size 0/255 `mask` in, the adjusted mask out (a new array when
    anything changed; the input is never written)."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray: ...


def supported_mask(refined: np.ndarray, prob: np.ndarray, level: float) -> np.ndarray:
    """The refined full-size mask (0/255) plus the coarse probability's support around it.

    `prob` is the frame's uint8 UI probability at model resolution. Its regions at or above
    `level` (8-connected, at model resolution) that hold a pixel of the refined mask are
    upsampled bilinearly and thresholded at `level` like `full_mask`, and joined to `refined`;
    regions the refined mask does not touch are dropped (the refiner looked there and said no).
    """
    q = int(np.ceil(level * 255))
    low = (prob >= q).astype(np.uint8)
    if not low.any() or not refined.any():
        return refined
    h, w = prob.shape
    height, width = refined.shape
    seeds = cv2.resize(refined, (w, h), interpolation=cv2.INTER_AREA) > 0
    count, comp = cv2.connectedComponents(low, connectivity=8)
    keep = np.zeros(count, bool)
    keep[np.unique(comp[seeds & (low > 0)])] = True
    keep[0] = False
    if not keep.any():
        return refined
    kept = np.where(keep[comp], prob, 0).astype(np.uint8)
    up = kept if kept.shape == (height, width) else cv2.resize(kept, (width, height), interpolation=cv2.INTER_LINEAR)
    return cv2.max(refined, cv2.threshold(up, q - 1, 255, cv2.THRESH_BINARY)[1])


@dataclass(frozen=True)
class CentreMarkRule:
    """Paint the window's centre mark (`centre_mark.window_centre_mark`) into the mask."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        fr = frame.full_res
        return fr.mark.paint(mask.copy()) if fr is not None and fr.mark is not None else mask


@dataclass(frozen=True)
class CoarseSupportRule:
    """Join the coarse probability's regions at or above `level` that touch the mask (`supported_mask`)."""

    level: float = 0.5

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        return supported_mask(mask, frame.ui_u8(), self.level)


@dataclass(frozen=True)
class SupportMotionRule:
    """Drop the parts the previous rule added that move more than `ratio` times the world near them
    (`support_motion.keep_still_support`)."""

    ratio: float = RATIO

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        fr = frame.full_res
        if fr is None or fr.spread is None:
            return mask
        return keep_still_support(frame.previous, mask, fr.spread, self.ratio)


@dataclass(frozen=True)
class StillDetailRule:
    """Join the window's still, detailed components that touch the mask (`still_detail.StillDetail.join`)."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        fr = frame.full_res
        return fr.still.join(mask) if fr is not None and fr.still is not None else mask


RULES: dict[str, type] = {
    "centre_mark": CentreMarkRule,
    "coarse_support": CoarseSupportRule,
    "support_motion": SupportMotionRule,
    "still_detail": StillDetailRule,
}
# coarse_support's level chosen on heldout720 and checked on heldout2; support_motion's ratio and
# still_detail: docs/results/mask_rules.md (each rule left out in turn)
DETECT_RULES = "centre_mark"
REMOVAL_RULES = "centre_mark,coarse_support:0.5,support_motion:0.75,still_detail"


def parse_rules(spec: str | Sequence[MaskRule] | None) -> tuple[MaskRule, ...]:
    """Rules from a configuration string (`"name[:value],..."`, see the module's list; "" or
    "none": no rule), or an already built sequence (returned as a tuple)."""
    if spec is None:
        return ()
    return _parse(spec) if isinstance(spec, str) else tuple(spec)


@functools.lru_cache(maxsize=64)
def _parse(spec: str) -> tuple[MaskRule, ...]:
    rules = []
    for item in (s.strip() for s in spec.split(",")):
        if not item or item == "none":
            continue
        name, _, value = item.partition(":")
        if name not in RULES:
            raise ValueError(f"unknown mask rule {name!r}: use one of {sorted(RULES)}")
        cls = RULES[name]
        try:
            rules.append(cls(float(value)) if value else cls())
        except TypeError:
            raise ValueError(f"mask rule {name!r} takes no value, got {value!r}") from None
        except ValueError:
            raise ValueError(f"mask rule {name!r}: {value!r} is not a number") from None
    return tuple(rules)


def apply_rules(
    rules: Sequence[MaskRule], mask: np.ndarray, prediction: FramePrediction, width: int, height: int
) -> np.ndarray:
    """`mask` (full size, 0/255, the refiner's) with `rules` applied in order."""
    previous = mask
    for rule in rules:
        mask, previous = rule(mask, RuleInput(prediction, width, height, previous)), mask
    return mask
