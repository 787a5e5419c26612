"""Paper fidelity of synthesis: the Bernoulli popup rate and the icon and event opacities.

B.3 (after Eq. 8): the general profile expects 5.50 events per video under the automatic style.
E.2: inventory icons are composited at opacity 0.96. Table 13: each event category has its own
opacity; the paper never multiplies it by alpha_HUD (that is an explicit, recorded option here).
"""

import numpy as np
import pytest

from g2w.hud import profile as P
from g2w.hud.layers import LayerSource
from g2w.hud.patches import resize_rgba, with_opacity
from g2w.hud.plan import plan_sample, rendered_events, rendered_widgets
from g2w.hud.seeds import SeedStreams
from g2w.hud.stats import layout_stats


def _expected_events(style: str) -> float:
    density = P.STYLES[style].transient_density
    return sum(P.bernoulli_slot_p(w, density) * m for w, m in P.EVENT_POLICY.values())


def test_bernoulli_expectation_is_5_50_over_the_style_mixture():
    per_style = {s: _expected_events(s) for s in P.STYLES}
    assert np.mean(list(per_style.values())) == pytest.approx(5.50)  # auto: a uniform style choice
    assert per_style["arena"] > per_style["survival"]  # denser styles still draw more events
    for s, value in per_style.items():
        assert value == pytest.approx(P.bernoulli_expected(s))
    assert P.bernoulli_expected("auto") == 5.50
    # every slot probability is a real probability, so no clipping bends the expectation
    assert (
        max(P.bernoulli_slot_p(w, p.transient_density) for w, _ in P.EVENT_POLICY.values() for p in P.STYLES.values())
        < 1.0
    )


def test_layout_stats_shows_the_bernoulli_mean_beside_5_50_and_the_opacities(library):
    n = 500
    out = layout_stats(n, seed=2, profile=P.SynthProfile(popups="bernoulli"), library=library)
    mean = out["popup_mean"]
    assert mean["paper"] == 5.50 and mean["expected"] == 5.50
    # sd of the count: sqrt(E[var | style] + var(E | style)) is below 2 events
    assert abs(mean["observed"] - 5.50) < 4 * 2.0 / np.sqrt(n)
    op = out["opacity"]
    assert op["event_opacity_times_hud"] is False
    assert op["icon"] == {"expected": 0.96, "observed": 0.96}
    for cat, pair in op["event"].items():
        assert pair["expected"] == P.EVENT_PROFILES[cat].opacity
        assert pair["observed"] == pytest.approx(pair["expected"]), cat
    hud = 0.94 * np.mean([s.opacity_scale for s in P.STYLES.values()])
    assert op["hud_mean"]["expected"] == pytest.approx(hud, abs=1e-4)


def _record_with_icons_and_events(library, profile):
    for seed in range(200):
        rec = plan_sample(SeedStreams(seed), profile, library)
        bars = [w for w in rendered_widgets(rec) if w.get("inventory", {}).get("states")]
        if bars and rendered_events(rec):
            return rec, bars[0]
    raise AssertionError("no sample with both an inventory and an event")


@pytest.mark.parametrize("times_hud", [False, True])
def test_composited_alpha_uses_the_papers_opacities(library, times_hud):
    profile = P.SynthProfile.tiny(
        width=640, height=360, duration_s=5.0, popups="bernoulli", event_opacity_times_hud=times_hud
    )
    rec, bar = _record_with_icons_and_events(library, profile)
    alpha_hud = rec["style"]["alpha_hud"]
    assert alpha_hud < 0.96  # so the product would be visibly different
    source = LayerSource(rec, library.image)
    # an inventory icon: 0.96 alone, whatever the style
    state = bar["inventory"]["states"][0]
    icon = state["icons"][0]
    frame = int(np.ceil(state["start_s"] * rec["video"]["fps"]))
    layers = {layer.instance: layer for layer in source.frame(frame)}
    got = layers[f"{bar['id']}/s0_slot{icon['slot']}"].rgba
    want = with_opacity(resize_rgba(library.image(icon["asset_id"]), *icon["size"]), 0.96, 8)
    assert np.array_equal(got[..., 3], want[..., 3])
    # events mid-way (entrance and exit each take at most 32 %, so every animation is at rest):
    # Table 13's opacity, times alpha_HUD only when the profile asks
    checked = 0
    for ev in rendered_events(rec):
        index = (ev["start_frame"] + ev["end_frame"]) // 2
        table = P.EVENT_PROFILES[ev["category"]].opacity
        expect = table * alpha_hud if times_hud else table
        assert ev["table_opacity"] == table and ev["opacity"] == pytest.approx(expect)
        layer = {la.instance: la for la in source.frame(index)}.get(ev["id"])
        assert layer is not None and layer.rgba.shape[:2] == tuple(ev["size"][::-1]), ev["id"]
        want = with_opacity(resize_rgba(library.image(ev["asset_id"]), *ev["size"]), expect, 8)
        assert np.array_equal(layer.rgba[..., 3], want[..., 3]), ev["id"]
        checked += 1
    assert rec["profile"]["event_opacity_times_hud"] is times_hud
    assert checked >= 1
