"""Empirical statistics of sampled layouts, set beside the paper's tables (`g2w layout-stats`).

Plans (not renders) many samples and reports, each next to its expected value: style
frequencies (uniform over Table 9), persistent spawn rates (Table 10) and the mean spawned
count (4.00), the popup count distribution (Eq. 8, mean 1.5) or the Bernoulli profile's mean,
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
from g2w.hud.profile import (
    ANIMATION_WEIGHTS,
    ASSET_MIXTURE,
    BERNOULLI_EXPECTED,
    EVENT_POLICY,
    PERSISTENT_SPAWN,
    POPUP_COUNT_P,
    STYLES,
    SynthProfile,
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
    return {k: {"expected": round(expected[k], digits), "observed": round(observed.get(k, 0.0), digits)} for k in expected}


def layout_stats(samples: int, seed: int, profile: SynthProfile | None = None,
                 library: AssetLibrary | None = None, per_label: int = 4) -> dict:
    profile = profile or SynthProfile()
    library = library or bootstrap_memory(per_label, seed)
    start = time.perf_counter()
    styles, spawned, counts, categories, animations = Counter(), Counter(), Counter(), Counter(), Counter()
    mixtures: dict[str, Counter] = defaultdict(Counter)
    n_spawned = n_placeable = n_suppressed = n_no_asset = n_events_skipped = 0
    density = 0.0
    for i in range(samples):
        rec = plan_sample(SeedStreams(sample_seed(seed, i)), profile, library)
        styles[rec["style"]["name"]] += 1
        density += rec["style"]["transient_density"]
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
        "samples": samples, "seed": seed, "profile": profile.popups, "style_setting": profile.style,
        "library": "bootstrap in memory" if library.root is None else library.root,
        "styles": _pair({s: 1 / len(STYLES) if profile.style == "auto" else float(s == profile.style) for s in sorted(STYLES)},
                        _freq(styles, STYLES)),
        "persistent_rate": _pair(PERSISTENT_SPAWN, {k: spawned[k] / n for k in PERSISTENT_SPAWN}),
        "persistent_mean": {"expected": round(sum(PERSISTENT_SPAWN.values()), 4), "observed": round(n_spawned / n, 4)},
        "suppression_rate": round(n_suppressed / max(n_placeable, 1), 4),
        "persistent_without_asset_rate": round(n_no_asset / max(n_spawned, 1), 4),
        "event_category_share": _pair(
            expected_category_shares() if profile.popups == "five_second" else
            {k: w * m / sum(a * b for a, b in EVENT_POLICY.values()) for k, (w, m) in EVENT_POLICY.items()},
            _freq(categories, EVENT_POLICY)),
        "asset_taxonomy_mixture": {cat: _pair(mix, _freq(mixtures[cat], mix)) for cat, mix in ASSET_MIXTURE.items()},
        "animation": _pair({k: w / total_w for k, w in ANIMATION_WEIGHTS.items()}, _freq(animations, ANIMATION_WEIGHTS)),
        "events_without_asset_rate": round(n_events_skipped / max(sum(categories.values()), 1), 4),
    }
    if profile.popups == "five_second":
        out["popup_count"] = _pair({str(m): p for m, p in enumerate(POPUP_COUNT_P)},
                                   {str(m): c / n for m, c in counts.items()})
        out["popup_mean"] = {"expected": round(sum(m * p for m, p in enumerate(POPUP_COUNT_P)), 4),
                             "observed": round(sum(m * c for m, c in counts.items()) / n, 4)}
    else:  # Bernoulli: 5.50 at density 1, scaled by the drawn styles' densities
        out["popup_mean"] = {"expected": round(BERNOULLI_EXPECTED * density / n, 4),
                             "observed": round(sum(m * c for m, c in counts.items()) / n, 4)}
    out["seconds"] = round(time.perf_counter() - start, 2)
    return out
