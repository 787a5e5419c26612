"""Choosing the asset for a widget or event: eligibility, then a uniform or matched draw.

The pool is the label's verified, renderable assets (B.2). Each candidate is sized for the role
it would fill and kept only if it passes the aspect-ratio rule or its 4 % area fallback. The
draw is uniform over eligible candidates, or weighted by aesthetic similarity (Appendix D) when
a scorer is given; with matching, the record keeps the score and the top alternatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from g2w.hud.aesthetic import AestheticScorer
from g2w.hud.assets import Asset, AssetLibrary
from g2w.hud.priors import Style, eligible_size, limits
from g2w.hud.profile import ROLE_PRIORS, SynthProfile


@dataclass(frozen=True)
class Candidate:
    asset: Asset
    role: str
    size: tuple[int, int]
    aspect_fallback: bool

    @property
    def asset_id(self) -> str:
        return self.asset.asset_id


@dataclass(frozen=True)
class Pick:
    candidate: Candidate
    matching: dict | None  # aesthetic diagnostics, None when drawn uniformly


@dataclass(frozen=True)
class SizeRule:
    """How a role or event category sizes its asset."""

    aspect: tuple[float, float]
    w_max: float
    h_max: float
    scale: float  # UI scale times role scale


def role_rule(role: str, style: Style) -> SizeRule:
    prior = ROLE_PRIORS[role]
    return SizeRule(prior.aspect, prior.w_max, prior.h_max, style.ui_scale * style.role_scale(role))


class AssetPicker:
    def __init__(self, library: AssetLibrary, profile: SynthProfile, scorer: AestheticScorer | None = None):
        self.library = library
        self.profile = profile
        self.scorer = scorer

    def candidates(self, label: str, rules: dict[str, SizeRule]) -> list[Candidate]:
        """Eligible assets of `label`. `rules` maps each role the label can fill to its sizing;
        an asset whose own role is not among them fills the first one."""
        p = self.profile
        default_role = next(iter(rules))
        out = []
        for asset in self.library.pool(label, include_unverified=p.include_unverified):
            role = asset.role if asset.role in rules else default_role
            rule = rules[role]
            box = limits(rule.w_max, rule.h_max, rule.scale, p.width, p.height)
            size, fallback = eligible_size(
                asset, rule.aspect, box, rule.scale, p.width, p.height, p.aspect_fallback_area
            )
            if size is not None:
                out.append(Candidate(asset, role, size, fallback))
        return out

    def pick(self, rng: np.random.Generator, label: str, rules: dict[str, SizeRule]) -> Pick | None:
        cands = self.candidates(label, rules)
        if not cands:
            return None
        if self.scorer is None:
            return Pick(cands[int(rng.integers(len(cands)))], None)
        scores = np.array(
            [
                self.scorer.score(
                    c.asset_id, c.asset.descriptor, self.library.image(c.asset_id) if self.scorer.neural else None
                )
                for c in cands
            ]
        )
        k, diagnostics = self.scorer.choose(cands, scores, rng)
        return Pick(cands[k], diagnostics)
