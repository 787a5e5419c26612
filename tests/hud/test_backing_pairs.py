"""Translucent backings in whole samples: mask coverage, exact pairs, annotation, surveyed rates."""

from __future__ import annotations

import numpy as np
import pytest

from g2w.cases.annotation import parse_annotation
from g2w.hud.annotate import annotate_record
from g2w.hud.backing import NO_PANEL_LABELS, OPACITY_RANGE, RATES, SURVEY, backing_patch, plan_backings
from g2w.hud.composite import Compositor
from g2w.hud.layers import LayerSource
from g2w.hud.patches import visible_part
from g2w.hud.plan import plan_sample
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams

from .conftest import gameplay_frames

PROFILE = SynthProfile.tiny(width=480, height=270, duration_s=0.5)


def _record_with(library, role: str) -> dict:
    for seed in range(200):
        rec = plan_sample(SeedStreams(seed), PROFILE, library)
        if any(b["role"] == role for b in rec["backings"]["elements"]):
            return rec
    raise AssertionError(f"no {role} in 200 seeds")


def _reference(frame: np.ndarray, layers) -> np.ndarray:
    """Whole-frame straight-alpha over, layer by layer in float32, rounded once."""
    h, w = frame.shape[:2]
    out = frame.astype(np.float32)
    for layer in layers:
        lh, lw = layer.rgba.shape[:2]
        src, dst = visible_part(layer.x, layer.y, lw, lh, w, h)
        if dst.empty:
            continue
        p = layer.rgba[src.y1 : src.y2, src.x1 : src.x2].astype(np.float32)
        a = p[..., 3:4] / np.float32(255.0)
        region = out[dst.y1 : dst.y2, dst.x1 : dst.x2]
        region[:] = p[..., :3] * a + region * (np.float32(1.0) - a)
    return np.rint(out).astype(np.uint8)


def _widgets(n: int, rng: np.random.Generator, labels: list[str]) -> list[dict]:
    out = []
    for k in range(n):
        x, y = (int(v) for v in rng.integers(0, 400, 2))
        out.append(
            {
                "id": f"p_{labels[k]}",
                "label": labels[k],
                "support": [0, 0, 40, 20],
                "xy": [x, y],
                "motion": {"moving": False, "amplitude": [0.0, 0.0], "phase": [0, 0], "period_s": [6, 7]},
            }
        )
    return out


@pytest.mark.parametrize("role", ["backing_band", "backing_panel"])
def test_mask_covers_the_backing_and_the_pair_is_an_exact_composite(library, role):
    rec = _record_with(library, role)
    source = LayerSource(rec, library.image)
    frames = gameplay_frames(PROFILE.width, PROFILE.height, 3)
    compositor = Compositor("cpu")
    for index, clean in enumerate(frames):
        layers = source.frame(index)
        hud, mask = compositor(clean, layers)
        assert np.array_equal(hud, _reference(clean, layers))
        assert np.array_equal(hud[mask == 0], clean[mask == 0])
        for b in rec["backings"]["elements"]:
            layer = next(la for la in layers if la.instance == b["id"])
            h, w = layer.rgba.shape[:2]
            _, dst = visible_part(layer.x, layer.y, w, h, PROFILE.width, PROFILE.height)
            assert (mask[dst.y1 : dst.y2, dst.x1 : dst.x2] == 255).all()
            assert (layer.rgba[..., 3] > 0).all()


def test_band_spans_the_width_at_an_edge_and_is_translucent_in_the_annotation(library):
    rec = _record_with(library, "backing_band")
    band = next(b for b in rec["backings"]["elements"] if b["role"] == "backing_band")
    x1, y1, x2, y2 = band["rect"]
    assert (x1, x2) == (0, PROFILE.width)
    assert y1 == 0 or y2 == PROFILE.height
    patch = backing_patch(band, PROFILE.alpha_threshold)
    inner = patch[3:-3, 3:-3, 3] if band["border"] else patch[..., 3]
    assert (inner == round(band["opacity"] * 255)).all()
    annotation = annotate_record(rec, library.image)
    parsed = parse_annotation(annotation)
    inst = parsed.instances[band["id"]]
    assert inst.translucent and inst.opacity == band["opacity"]
    assert not any(i.translucent for iid, i in parsed.instances.items() if not iid.startswith(("b_", "t_")))


def test_opacity_in_range_dark_fill_and_deterministic(library):
    seen = 0
    for seed in range(40):
        a = plan_sample(SeedStreams(seed), PROFILE, library)
        assert a == plan_sample(SeedStreams(seed), PROFILE, library)
        for b in a["backings"]["elements"]:
            seen += 1
            assert OPACITY_RANGE[0] <= b["opacity"] <= OPACITY_RANGE[1]
            assert max(max(c) for c in b["fill"]["colors"]) <= 0.45 * 255 + 1
            assert np.array_equal(backing_patch(b, 8), backing_patch(b, 8))
    assert seen > 0


def test_off_in_the_profile_draws_none(library):
    rec = plan_sample(SeedStreams(1), SynthProfile.tiny(backings=False), library)
    assert rec["backings"] is None and LayerSource(rec, library.image).backings == []


def test_rates_match_the_survey_over_many_layouts():
    labels = ["map_radar", "player_status", "inventory", "weapon_ammo", "crosshair"]
    assert "crosshair" in NO_PANEL_LABELS
    n, bands, bottoms, backed, eligible, gradients, opacities = 3000, 0, 0, 0, 0, 0, []
    for seed in range(n):
        widgets = _widgets(5, np.random.default_rng(seed), labels)
        out = plan_backings(SeedStreams(seed), widgets, 480, 480)["elements"]
        band = [b for b in out if b["role"] == "backing_band"]
        bands += len(band)
        bottoms += sum(b["edge"] == "bottom" for b in band)
        backed += sum(len(b["members"]) for b in out)
        eligible += 4
        gradients += sum(b["fill"]["kind"] != "solid" for b in out)
        opacities += [b["opacity"] for b in out]
    assert abs(bands / n - RATES["band"]) < 0.02
    assert abs(bottoms / bands - RATES["band_bottom"]) < 0.1
    assert abs(backed / eligible - RATES["panel"]) < 0.02
    assert abs(gradients / len(opacities) - RATES["gradient"]) < 0.05
    # opacity: mixture of the surveyed ranges, weighted by their backings
    w = np.array(RATES["opacity_weights"], float)
    expected = sum(wi * (lo + hi) / 2 for wi, (lo, hi) in zip(w, RATES["opacity_ranges"])) / w.sum()
    assert abs(np.mean(opacities) - expected) < 0.01


def test_survey_rates_are_the_documented_table():
    with open("docs/hud_synthesis.md") as f:
        doc = f.read()
    for s in SURVEY:
        assert f"| {s.game} |" in doc
