"""Translucent backings: planned at the surveyed rates, within the translucent opacity range,
deterministic by seed, drawn as ordinary layers under the widgets, and annotated as translucent."""

from __future__ import annotations

import numpy as np

from g2w.hud.backing import OPACITY_RANGE, RATES, SURVEY, backing_patch, plan_backings, survey_rates
from g2w.hud.layers import LayerSource
from g2w.hud.plan import plan_sample, rendered_backings
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams

W, H = 640, 360


def _widget(wid: str, label: str, xy, size=(60, 20), moving=False) -> dict:
    return {
        "id": wid,
        "label": label,
        "xy": list(xy),
        "support": [0, 0, size[0], size[1]],
        "motion": {"moving": moving},
    }


WIDGETS = [
    _widget("w_health", "health_bar", (20, 320)),
    _widget("w_ammo", "ammo_counter", (82, 320)),  # touches the health bar's padded rectangle
    _widget("w_map", "minimap", (520, 20), (100, 100)),
    _widget("w_cross", "crosshair", (310, 170), (20, 20)),
]


def test_rates_come_from_the_survey_table():
    rates = survey_rates()
    assert rates == RATES
    assert 0 < rates["band"] < 1 and 0 < rates["panel"] < 1
    assert rates["band"] == sum(s.band is not None for s in SURVEY) / len(SURVEY)
    assert rates["panel"] == sum(s.panels for s in SURVEY) / sum(s.widgets for s in SURVEY)


def test_plan_is_deterministic_and_within_range():
    a = plan_backings(SeedStreams(5), WIDGETS, W, H)
    b = plan_backings(SeedStreams(5), WIDGETS, W, H)
    assert a == b
    for seed in range(60):
        for el in plan_backings(SeedStreams(seed), WIDGETS, W, H)["elements"]:
            assert OPACITY_RANGE[0] <= el["opacity"] <= OPACITY_RANGE[1]
            assert "w_cross" not in el["members"]  # a crosshair is drawn over the world, never on a panel
            x1, y1, x2, y2 = el["rect"]
            assert 0 <= x1 < x2 <= W and 0 <= y1 < y2 <= H


def test_planned_rates_match_the_survey_over_many_seeds():
    seeds = range(400)
    plans = [plan_backings(SeedStreams(s), WIDGETS, W, H)["elements"] for s in seeds]
    bands = np.mean([any(e["role"] == "backing_band" for e in p) for p in plans])
    health_on_panel = np.mean([any("w_health" in e["members"] for e in p) for p in plans])
    assert abs(bands - RATES["band"]) < 0.06
    assert abs(health_on_panel - RATES["panel"]) < 0.08


def test_touching_still_widgets_share_one_panel_covering_both():
    for seed in range(200):
        panels = [
            e for e in plan_backings(SeedStreams(seed), WIDGETS, W, H)["elements"] if e["role"] == "backing_panel"
        ]
        both = [e for e in panels if {"w_health", "w_ammo"} <= set(e["members"])]
        if both:
            x1, y1, x2, y2 = both[0]["rect"]
            assert x1 <= 20 and x2 >= 142 and y1 <= 320 and y2 >= 340
            return
    raise AssertionError("no seed put both touching widgets on a panel")


def test_patch_alpha_is_the_opacity_and_the_border_more_opaque():
    backing = {
        "rect": [0, 0, 40, 12],
        "opacity": 0.4,
        "fill": {"kind": "vertical", "colors": [[10, 10, 20], [40, 40, 60]]},
        "border": {"px": 1, "color": [150, 150, 150], "opacity": 0.65},
    }
    patch = backing_patch(backing, threshold=1)
    assert patch.shape == (12, 40, 4)
    assert patch[5, 5, 3] == round(0.4 * 255) and patch[0, 0, 3] == round(0.65 * 255)
    assert patch[1, 5, 0] < patch[10, 5, 0]  # the vertical gradient darkens upwards
    assert (backing_patch({**backing, "opacity": 0.2, "border": None}, threshold=60)[..., 3] == 0).all()


def test_a_sample_draws_its_backings_first_and_annotates_them_as_translucent(library):
    profile = SynthProfile(width=W, height=H, duration_s=0.2)
    for seed in range(40):
        record = plan_sample(SeedStreams(seed), profile, library)
        backings = rendered_backings(record)
        if backings:
            break
    else:
        raise AssertionError("no backing in 40 samples")
    source = LayerSource(record, library.image)
    instances = source.instances()
    for b in backings:
        assert instances[b["id"]]["translucent"] is True and instances[b["id"]]["opacity"] == b["opacity"]
    layers = source.frame(0)
    ids = [layer.instance for layer in layers]
    assert ids[: len(backings)] == [b["id"] for b in backings]  # under every widget
    first = layers[0]
    assert np.all(first.rgba[2:-2, 2:-2, 3] <= round(OPACITY_RANGE[1] * 255))


def test_older_records_have_no_backings():
    assert rendered_backings({"backings": None}) == [] and rendered_backings({}) == []
