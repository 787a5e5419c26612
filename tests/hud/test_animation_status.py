"""The six popup animations, dynamic status bars and inventory states, parameter by parameter."""

import math
from collections import Counter

import numpy as np
import pytest

from g2w.hud.animation import animation_state, ease_out_back, sample_animation, wipe_reveal
from g2w.hud.annotate import annotate_record
from g2w.hud.inventory import fit_icon, sample_states, state_times
from g2w.hud.plan import plan_sample
from g2w.hud.profile import ANIMATION_TIMES_S, ICON_FIT, SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.hud.status_bars import apply_fill, level, smooth

W, H = 1280, 720


def anims(kind=None, n=400, duration=4.0):
    out = []
    for seed in range(n * 4 + 200):
        a = sample_animation(np.random.default_rng(seed), duration, 0.3, (200, 60), (900.0, 100.0), W, H)
        if kind is None or a["kind"] == kind:
            out.append(a)
        if len(out) == n:
            break
    return out


def test_entrance_and_exit_ranges_and_the_32_percent_cap():
    for a in anims():
        (ilo, ihi), (olo, ohi) = ANIMATION_TIMES_S[a["kind"]]
        assert ilo <= a["entrance_s"] <= ihi and olo <= a["exit_s"] <= ohi
    for a in anims(n=200, duration=1.2):
        assert a["entrance_s"] <= 0.32 * 1.2 + 1e-12 and a["exit_s"] <= 0.32 * 1.2 + 1e-12
    for kind in ("instant", "border_arc"):
        assert all(a["entrance_s"] == a["exit_s"] == 0 for a in anims(kind, 20))


def test_fade_and_instant_opacity():
    a = anims("fade", 1)[0]
    assert animation_state(a, 0.0, 4.0, W, H).opacity == 0.0
    assert animation_state(a, 2.0, 4.0, W, H).opacity == 1.0
    mid = animation_state(a, a["entrance_s"] / 2, 4.0, W, H).opacity
    assert 0.0 < mid < 1.0
    assert animation_state(a, 4.0 - 1e-6, 4.0, W, H).opacity < 0.01
    i = anims("instant", 1)[0]
    assert animation_state(i, 0.0, 4.0, W, H).opacity == 1.0 and animation_state(i, 3.99, 4.0, W, H).opacity == 1.0


def test_slide_enters_from_the_nearer_side_and_leaves_with_a_smaller_shift():
    a = anims("slide", 1)[0]
    assert a["direction"] == 1  # the widget rests right of centre
    start = animation_state(a, 0.0, 4.0, W, H)
    end = animation_state(a, 4.0 - 1e-6, 4.0, W, H)
    assert start.dx == pytest.approx(a["distance_px"]) and start.opacity == 0.0
    assert 0 < end.dx < start.dx and animation_state(a, 2.0, 4.0, W, H).dx == 0.0


def test_pop_overshoots_settles_and_shrinks():
    assert max(ease_out_back(x / 100) for x in range(101)) > 1.05 and ease_out_back(1.0) == pytest.approx(1.0)
    a = anims("pop", 1)[0]
    scales = [animation_state(a, t, 4.0, W, H).scale for t in np.linspace(0, a["entrance_s"], 50)]
    assert scales[0] == pytest.approx(a["start_scale"]) and max(scales) > 1.0
    assert animation_state(a, 2.0, 4.0, W, H).scale == 1.0
    assert animation_state(a, 4.0 - 1e-4, 4.0, W, H).scale < 0.6


def test_wipe_trail_reveals_left_to_right_irregularly_then_removes():
    a = anims("wipe_trail", 1)[0]
    assert np.all(wipe_reveal(a, "in", 0.0, 120, 40) == 0) and np.all(wipe_reveal(a, "in", 1.0, 120, 40) == 1)
    assert np.all(wipe_reveal(a, "out", 0.0, 120, 40) == 1) and np.all(wipe_reveal(a, "out", 1.0, 120, 40) == 0)
    half = wipe_reveal(a, "in", 0.5, 120, 40)
    assert half[:, 0].mean() > half[:, -1].mean()  # the left side shows first
    fronts = (half > 0.5).sum(axis=1)
    assert len(set(fronts.tolist())) > 3  # the front is ragged row to row


def test_border_arc_uses_two_borders_and_recorded_arc_parameters():
    arcs = anims("border_arc", 200)
    assert all(a["entry_border"] != a["exit_border"] for a in arcs)
    assert len({(a["entry_border"], a["exit_border"]) for a in arcs}) == 12
    for a in arcs[:50]:
        assert 0.14 * H <= a["arc_height_px"] <= 0.34 * H
        assert 0.010 * H <= a["noise_amplitude_px"] <= 0.032 * H and 1.7 <= a["noise_cycles"] <= 3.8
        w, h = 200, 60
        for t in (0.0, 4.0):  # starts and ends fully outside the frame
            s = animation_state(a, t, 4.0, W, H)
            x, y = a["rest_xy"][0] + s.dx, a["rest_xy"][1] + s.dy
            assert x + w <= 0 or x >= W or y + h <= 0 or y >= H


def test_animation_kinds_follow_table_14():
    kinds = Counter(a["kind"] for a in anims(n=4000))
    for kind, p in {
        "fade": 0.22,
        "instant": 0.13,
        "slide": 0.16,
        "wipe_trail": 0.18,
        "pop": 0.09,
        "border_arc": 0.22,
    }.items():
        assert abs(kinds[kind] / 4000 - p) < 4 * math.sqrt(p * (1 - p) / 4000)


def test_status_signals_stay_in_their_ranges_and_fill_darkens_only_unfilled_colour():
    ts = np.linspace(0, 30, 3000)
    hp = [smooth(t, 9.0, 0.2, 0.42, 0.96) for t in ts]
    assert 0.3 < min(hp) < 0.45 and 0.9 < max(hp) <= 1.0
    stm = [level("stm", t, 0.0) for t in ts]
    assert 0.1 < min(stm) < 0.3 and 0.85 < max(stm) <= 1.0
    bar = np.zeros((10, 100, 4), np.uint8)
    bar[..., 3] = 255
    bar[2:8, 10:90, :3] = (220, 30, 30)  # red fill
    bar[4:6, 50:60, :3] = (250, 250, 250)  # white text inside the bar
    out = apply_fill(bar, [{"kind": "hp", "box": [10, 2, 90, 8]}], [30])
    assert np.array_equal(out[2:8, 10:40], bar[2:8, 10:40])  # filled part keeps its colour
    assert np.array_equal(out[3, 60, :3], np.rint(np.array([220, 30, 30]) * 0.3).astype(np.uint8))
    assert np.array_equal(out[4:6, 50:60], bar[4:6, 50:60])  # unsaturated pixels untouched


def test_inventory_states_timing_occupancy_and_icon_fit(library):
    streams = SeedStreams(4)
    times = state_times(streams, 30.0)
    assert times[0][0] == 0 and times[-1][1] == 30.0
    assert all(3.2 <= e - s <= 7.8 for s, e in times[:-1])
    slots = [[k * 50 + 4, 4, k * 50 + 46, 46] for k in range(8)]
    pool = [a.asset_id for a in library.icons()]
    states = sample_states(streams, library, slots, 30.0, pool)
    for state in states:
        assert 0.62 <= state["occupancy"] <= 1.0
        assert len(state["icons"]) == min(8, round(state["occupancy"] * 8))
        for icon in state["icons"]:
            w, h = icon["size"]
            assert w <= ICON_FIT * 42 + 1 and h <= ICON_FIT * 42 + 1
            assert max(w, h) >= ICON_FIT * 42 - 1
            fit = fit_icon(library.get(icon["asset_id"]), 42, 42)
            assert fit == (w, h)


def test_inventory_icons_are_annotated_as_children_of_the_bar(library):
    found = 0
    for seed in range(40):
        rec = plan_sample(SeedStreams(seed), SynthProfile.tiny(width=640, height=360), library)
        bars = [w for w in rec["persistent"] if w.get("inventory", {}).get("mode") == "states"]
        if not bars:
            continue
        ann = annotate_record(rec, library.image)
        children = [i for i in ann["instances"] if i["kind"] == "child"]
        assert children and all(c["parent"] == bars[0]["id"] and c["role"] == "icon" for c in children)
        found += 1
    assert found >= 3
