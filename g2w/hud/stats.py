"""Empirical statistics of sampled layouts, set beside the paper's tables (`g2w layout-stats`).

Plans (not renders) many samples and reports, each next to its expected value: style
frequencies (uniform over Table 9), persistent spawn rates (Table 10) and the mean spawned
count (4.00), the popup count distribution (Eq. 8, mean 1.5) or the Bernoulli profile's mean
(beside the paper's 5.50), the opacities actually recorded (alpha_HUD per Eq. 7, inventory icons
at 0.96 per E.2, events at Table 13's values),
event-category shares (Table 11, with the expectation computed exactly under the per-category
maxima), asset-taxonomy mixtures per category (Table 12), animation frequencies (Table 14),
and the collision suppression rate. Without a library argument it plans against a procedural
bootstrap library held in memory.
"""

from __future__ import annotations

import functools
import time
from collections import Counter, defaultdict

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import bootstrap_memory
from g2w.hud.plan import plan_sample
from g2w.hud.priors import make_style
from g2w.hud.profile import (
    ANIMATION_WEIGHTS,
    ASSET_MIXTURE,
    BERNOULLI_EXPECTED,
    EVENT_POLICY,
    EVENT_PROFILES,
    ICON_OPACITY,
    PERSISTENT_SPAWN,
    POPUP_COUNT_P,
    STYLES,
    SynthProfile,
    bernoulli_expected,
)
from g2w.hud.seeds import SeedStreams, sample_seed


def _expected_counts_given_m(m: int) -> dict[str, float]:
    """E[count of each category | M = m] for sequential weighted draws capped at the maxima."""
    names = list(EVENT_POLICY)

    @functools.cache
    def walk(counts: tuple[int, ...], left: int) -> tuple[float, ...]:
        if left == 0:
            return tuple(float(c) for c in counts)
        open_ = [i for i, n in enumerate(names) if counts[i] < EVENT_POLICY[n][1]]
        total = sum(EVENT_POLICY[names[i]][0] for i in open_)
        acc = [0.0] * len(names)
        for i in open_:
            nxt = list(counts)
            nxt[i] += 1
            sub = walk(tuple(nxt), left - 1)
            p = EVENT_POLICY[names[i]][0] / total
            acc = [a + p * s for a, s in zip(acc, sub)]
        return tuple(acc)

    return dict(zip(names, walk((0,) * len(names), m)))


def expected_category_shares() -> dict[str, float]:
    """Each category's expected share of all popups under the five-second profile."""
    totals = defaultdict(float)
    for m, p in enumerate(POPUP_COUNT_P):
        for name, c in _expected_counts_given_m(m).items():
            totals[name] += p * c
    mean = sum(m * p for m, p in enumerate(POPUP_COUNT_P))
    return {k: v / mean for k, v in totals.items()}


def _freq(counter: Counter, keys) -> dict[str, float]:
    total = sum(counter.values()) or 1
    return {k: counter.get(k, 0) / total for k in keys}


def _pair(expected: dict, observed: dict, digits: int = 4) -> dict:
    return {
        k: {"expected": round(expected[k], digits), "observed": round(observed.get(k, 0.0), digits)} for k in expected
    }


class _OpacityTally:
    """Opacities as recorded in the planned samples, to set beside Eq. 7, E.2 and Table 13."""

    def __init__(self):
        self.hud, self.icons = [], []
        self.events: dict[str, list[float]] = defaultdict(list)
        self.event_hud: list[float] = []  # alpha_HUD of each event's sample

    def add(self, rec: dict) -> None:
        self.hud.append(rec["style"]["alpha_hud"])
        for w in rec["persistent"]:
            if "icon_opacity" in w.get("inventory", {}):
                self.icons.append(w["inventory"]["icon_opacity"])
        for ev in rec["events"]:
            if "skipped" not in ev:
                self.events[ev["category"]].append(ev["opacity"])
                self.event_hud.append(rec["style"]["alpha_hud"])

    def summary(self, profile: SynthProfile) -> dict:
        names = sorted(STYLES) if profile.style == "auto" else [profile.style]
        hud = sum(make_style(s, profile.opacity).alpha_hud for s in names) / len(names)
        factor = (
            (sum(self.event_hud) / len(self.event_hud)) if profile.event_opacity_times_hud and self.event_hud else 1.0
        )

        def mean(v):
            return round(sum(v) / len(v), 4) if v else None

        return {
            "event_opacity_times_hud": profile.event_opacity_times_hud,
            "hud_mean": {"expected": round(hud, 4), "observed": mean(self.hud)},
            "icon": {"expected": ICON_OPACITY, "observed": mean(self.icons)},
            "event": {
                cat: {"expected": round(prof.opacity * factor, 4), "observed": mean(self.events[cat])}
                for cat, prof in EVENT_PROFILES.items()
            },
        }


def layout_stats(
    samples: int,
    seed: int,
    profile: SynthProfile | None = None,
    library: AssetLibrary | None = None,
    per_label: int = 4,
) -> dict:
    profile = profile or SynthProfile()
    library = library or bootstrap_memory(per_label, seed)
    start = time.perf_counter()
    styles, spawned, counts, categories, animations = Counter(), Counter(), Counter(), Counter(), Counter()
    mixtures: dict[str, Counter] = defaultdict(Counter)
    n_spawned = n_placeable = n_suppressed = n_no_asset = n_events_skipped = 0
    opacity = _OpacityTally()
    for i in range(samples):
        rec = plan_sample(SeedStreams(sample_seed(seed, i)), profile, library)
        styles[rec["style"]["name"]] += 1
        opacity.add(rec)
        spawned.update(k for k, on in rec["spawned"].items() if on)
        n_spawned += sum(rec["spawned"].values())
        for w in rec["persistent"]:
            if "skipped" in w:
                n_no_asset += 1
            else:
                n_placeable += 1
                n_suppressed += w["suppressed"]
        counts[rec["popups"]["count"]] += 1
        categories.update(rec["popups"]["categories"])
        for ev in rec["events"]:
            mixtures[ev["category"]][ev["asset_taxonomy_drawn"]] += 1
            if "skipped" in ev:
                n_events_skipped += 1
            else:
                animations[ev["animation"]["kind"]] += 1
    n = max(samples, 1)
    total_w = sum(ANIMATION_WEIGHTS.values())
    out = {
        "samples": samples,
        "seed": seed,
        "profile": profile.popups,
        "style_setting": profile.style,
        "library": "bootstrap in memory" if library.root is None else library.root,
        "styles": _pair(
            {s: 1 / len(STYLES) if profile.style == "auto" else float(s == profile.style) for s in sorted(STYLES)},
            _freq(styles, STYLES),
        ),
        "persistent_rate": _pair(PERSISTENT_SPAWN, {k: spawned[k] / n for k in PERSISTENT_SPAWN}),
        "persistent_mean": {"expected": round(sum(PERSISTENT_SPAWN.values()), 4), "observed": round(n_spawned / n, 4)},
        "suppression_rate": round(n_suppressed / max(n_placeable, 1), 4),
        "persistent_without_asset_rate": round(n_no_asset / max(n_spawned, 1), 4),
        "event_category_share": _pair(
            expected_category_shares()
            if profile.popups == "five_second"
            else {k: w * m / sum(a * b for a, b in EVENT_POLICY.values()) for k, (w, m) in EVENT_POLICY.items()},
            _freq(categories, EVENT_POLICY),
        ),
        "asset_taxonomy_mixture": {cat: _pair(mix, _freq(mixtures[cat], mix)) for cat, mix in ASSET_MIXTURE.items()},
        "animation": _pair(
            {k: w / total_w for k, w in ANIMATION_WEIGHTS.items()}, _freq(animations, ANIMATION_WEIGHTS)
        ),
        "events_without_asset_rate": round(n_events_skipped / max(sum(categories.values()), 1), 4),
        "opacity": opacity.summary(profile),
    }
    if profile.popups == "five_second":
        out["popup_count"] = _pair(
            {str(m): p for m, p in enumerate(POPUP_COUNT_P)}, {str(m): c / n for m, c in counts.items()}
        )
        out["popup_mean"] = {
            "expected": round(sum(m * p for m, p in enumerate(POPUP_COUNT_P)), 4),
            "observed": round(sum(m * c for m, c in counts.items()) / n, 4),
        }
    else:  # Bernoulli: 5.50 over the automatic style mixture (B.3); a fixed style shifts it
        out["popup_mean"] = {
            "paper": BERNOULLI_EXPECTED,
            "expected": round(bernoulli_expected(profile.style), 4),
            "observed": round(sum(m * c for m, c in counts.items()) / n, 4),
        }
    out["seconds"] = round(time.perf_counter() - start, 2)
    return out
