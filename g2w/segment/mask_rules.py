"""The segmenter's mask rules: what is added to the refiner's mask, one rule at a time.

The network and its full-resolution refiner decide most pixels; a few hand rules, each reading
evidence the refinement already computed for its statistics window (`fullres.FullResTiles`),
adjust the result. Every rule has the same shape (`MaskRule`): it takes the mask so far and the
frame's evidence and returns the new mask, never writing into the one it was given. Rules run in
the order configured, a comma-separated list of names, each with an optional value after a
colon (`parse_rules`):

- `centre_mark`: the window's centre mark (a crosshair the network cannot see,
  `centre_mark`) is painted in;
- `still_detail`: the still, detailed pixels of the window's candidate tiles that touch the mask
  join it (`still_detail`): the glyphs of a text line the network found only in part.

A rule whose evidence is missing (no refinement, or one made for another size) returns the mask
unchanged. `g2w detect` writes the mask with `DETECT_RULES`; removers use `REMOVAL_RULES`, which
adds the rules whose extra area pays off in removal but would inflate the detector's boxes. Only
rules whose removal costs IoU on some real game stay (docs/results/mask_rules.md).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from g2w.segment.fullres import FullResTiles
    from g2w.segment.predict import FramePrediction


@dataclass(frozen=True)
class RuleInput:
    """What a rule may read besides the mask: the frame's prediction at the video's size."""

    prediction: FramePrediction
    width: int
    height: int

    @property
    def full_res(self) -> FullResTiles | None:
        """The prediction's full-resolution refinement when it was made for this size, else None."""
        fr = self.prediction.full_res
        return fr if fr is not None and (fr.width, fr.height) == (self.width, self.height) else None


class MaskRule(Protocol):
    """One step of the mask: full-size 0/255 `mask` in, the adjusted mask out (a new array when
    anything changed; the input is never written)."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray: ...


@dataclass(frozen=True)
class CentreMarkRule:
    """Paint the window's centre mark (`centre_mark.window_centre_mark`) into the mask."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        fr = frame.full_res
        return fr.mark.paint(mask.copy()) if fr is not None and fr.mark is not None else mask


@dataclass(frozen=True)
class StillDetailRule:
    """Join the window's still, detailed components that touch the mask (`still_detail.StillDetail.join`)."""

    def __call__(self, mask: np.ndarray, frame: RuleInput) -> np.ndarray:
        fr = frame.full_res
        return fr.still.join(mask) if fr is not None and fr.still is not None else mask


RULES: dict[str, type] = {
    "centre_mark": CentreMarkRule,
    "still_detail": StillDetailRule,
}
# each rule left out, and every subset, on the real pairs: docs/results/mask_rules.md
DETECT_RULES = "centre_mark"
REMOVAL_RULES = "centre_mark,still_detail"


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
    frame = RuleInput(prediction, width, height)
    for rule in rules:
        mask = rule(mask, frame)
    return mask
