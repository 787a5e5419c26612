"""The taxonomy, the table constants and the seed streams hold what the paper specifies."""

import numpy as np
import pytest

from g2w.hud import profile as P
from g2w.hud.priors import limits, make_style
from g2w.hud.seeds import STREAMS, SeedStreams, sample_seed
from g2w.taxonomy import EVENT_CATEGORIES, LABELS, PERSISTENT_LABEL_ROLES, ROLE_LABEL, check_label


def test_taxonomy_has_21_labels_and_roles_map_into_it():
    assert len(LABELS) == len(set(LABELS)) == 21 and "other_hud" in LABELS
    assert set(ROLE_LABEL) == set(P.ROLE_PRIORS)
    assert all(P.ROLE_PRIORS[r].label == lab for r, lab in ROLE_LABEL.items())
    assert set(PERSISTENT_LABEL_ROLES) == set(P.PERSISTENT_SPAWN)
    assert set(EVENT_CATEGORIES) == set(P.EVENT_POLICY) == set(P.ASSET_MIXTURE) == set(P.EVENT_PROFILES)
    mixture_labels = {lab for mix in P.ASSET_MIXTURE.values() for lab in mix}
    assert mixture_labels <= set(LABELS)
    with pytest.raises(ValueError, match="unknown UI label"):
        check_label("health_bar")


def test_distributions_sum_to_one_and_expectations_match_the_paper():
    assert sum(P.POPUP_COUNT_P) == pytest.approx(1.0)
    assert sum(m * p for m, p in enumerate(P.POPUP_COUNT_P)) == pytest.approx(1.5)
    assert sum(P.PERSISTENT_SPAWN.values()) == pytest.approx(4.0)
    assert sum(P.ANIMATION_WEIGHTS.values()) == pytest.approx(1.0)
    for mix in P.ASSET_MIXTURE.values():
        assert sum(mix.values()) == pytest.approx(1.0)
    bernoulli = sum(w * P.BERNOULLI_SLOT_SCALE * m for w, m in P.EVENT_POLICY.values())
    assert bernoulli == pytest.approx(5.5)


def test_style_opacity_and_scale_caps():
    for name, preset in P.STYLES.items():
        style = make_style(name)
        assert style.alpha_hud == pytest.approx(min(1.0, 0.94 * preset.opacity_scale))
    assert make_style("arena").alpha_hud == pytest.approx(0.9588)
    w, h = limits(0.9, 0.5, 1.3, 1280, 720)  # 1.17 of the frame width would exceed the cap
    assert w == pytest.approx(0.92 * 1280) and h == pytest.approx(0.65 * 720)


def test_seed_streams_are_deterministic_and_independent():
    a, b = SeedStreams(7), SeedStreams(7)
    assert a.rng("timing", "event", 0).random() == b.rng("timing", "event", 0).random()
    assert a.rng("timing", "event", 0).random() != a.rng("timing", "event", 1).random()
    moved = SeedStreams(7, {"timing": 99})
    for stream in STREAMS:
        same = a.rng(stream, "x").random() == moved.rng(stream, "x").random()
        assert same == (stream != "timing")
    assert SeedStreams.from_dict(moved.to_dict()) == moved
    assert sample_seed(0, 1) != sample_seed(0, 2) and sample_seed(0, 1) == sample_seed(0, 1)
    with pytest.raises(ValueError):
        SeedStreams(1, {"colour": 3})


def test_profile_round_trips_and_rejects_unknown_settings():
    prof = P.SynthProfile(style="rpg", popups="bernoulli")
    assert P.SynthProfile.from_dict(prof.to_dict()) == prof
    assert P.SynthProfile().frame_count == 150 and (P.SynthProfile().width, P.SynthProfile().height) == (1280, 720)
    with pytest.raises(ValueError):
        P.SynthProfile(style="cyberpunk")
    assert np.isclose(P.SynthProfile.tiny().duration_s, 1.0)
