"""Sampled layouts match Tables 9-14 and Eq. 8 within sampling tolerance (4 standard errors)."""

import json
import math
import subprocess
import sys

import pytest

from g2w.hud.profile import SynthProfile
from g2w.hud.stats import expected_category_shares, layout_stats

N = 1500


def within(pair: dict, n: int) -> bool:
    p = pair["expected"]
    return abs(pair["observed"] - p) <= 4 * math.sqrt(max(p * (1 - p), 1e-4) / n) + 1e-9


@pytest.fixture(scope="module")
def stats(library):
    return layout_stats(N, seed=0, library=library)


def test_persistent_spawn_rates_and_mean_count(stats):
    for label, pair in stats["persistent_rate"].items():
        assert within(pair, N), (label, pair)
    mean = stats["persistent_mean"]
    sd = math.sqrt(sum(p * (1 - p) for p in (0.68, 0.72, 0.58, 0.48, 0.64, 0.54, 0.36)))
    assert abs(mean["observed"] - 4.0) <= 4 * sd / math.sqrt(N) and mean["expected"] == 4.0
    assert 0.0 <= stats["suppression_rate"] < 0.05


def test_popup_counts_follow_eq_8_and_styles_are_uniform(stats):
    for m, pair in stats["popup_count"].items():
        assert within(pair, N), (m, pair)
    assert stats["popup_mean"]["expected"] == 1.5 and abs(stats["popup_mean"]["observed"] - 1.5) < 0.08
    for style, pair in stats["styles"].items():
        assert pair["expected"] == 0.2 and within(pair, N), (style, pair)


def test_categories_mixtures_and_animations_follow_tables_11_12_14(stats):
    events = round(stats["popup_mean"]["observed"] * N)
    for cat, pair in stats["event_category_share"].items():
        assert within(pair, events), (cat, pair)
    for cat, mix in stats["asset_taxonomy_mixture"].items():
        n = round(stats["event_category_share"][cat]["observed"] * events)
        for label, pair in mix.items():
            assert within(pair, max(n, 1)), (cat, label, pair)
    for kind, pair in stats["animation"].items():
        assert within(pair, events), (kind, pair)


def test_expected_category_shares_account_for_the_maxima():
    shares = expected_category_shares()
    assert sum(shares.values()) == pytest.approx(1.0)
    total = 3.25
    assert shares["teammate_roster"] == pytest.approx(0.2 / total, abs=0.005)  # maxima barely bind at M <= 5


def test_bernoulli_profile_with_a_fixed_style_keeps_its_relative_density(library):
    out = layout_stats(600, seed=1, profile=SynthProfile(style="arena", popups="bernoulli"), library=library)
    assert out["popup_mean"]["paper"] == 5.5
    assert out["popup_mean"]["expected"] == pytest.approx(5.5 * 1.35 / 1.07, abs=1e-3)  # densest preset
    assert abs(out["popup_mean"]["observed"] - out["popup_mean"]["expected"]) < 0.35


def test_layout_stats_command_prints_json():
    done = subprocess.run(
        [sys.executable, "-m", "g2w.cli", "layout-stats", "--samples", "40", "--seed", "3"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["samples"] == 40 and set(out["persistent_rate"]) >= {"map_radar", "crosshair"}
    assert {
        "popup_count",
        "event_category_share",
        "asset_taxonomy_mixture",
        "animation",
        "styles",
        "suppression_rate",
        "persistent_mean",
    } <= set(out)
