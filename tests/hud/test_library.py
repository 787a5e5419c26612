"""The asset library, the procedural bootstrap, eligibility, descriptors and aesthetic matching."""

from dataclasses import replace

import numpy as np
import pyarrow.parquet as pq
import pytest

from g2w.hud.aesthetic import (
    NeuralDescriptor,
    VideoAppearance,
    probe_indices,
    profile_similarity,
    select_keyframes,
    temperature,
)
from g2w.hud.assets import ALPHA_MIN, ASSETS_SCHEMA, Asset, AssetLibrary
from g2w.hud.bootstrap import bootstrap_library
from g2w.hud.descriptor import DIMENSIONS, appearance_descriptor
from g2w.hud.plan import plan_sample
from g2w.hud.priors import eligible_size, limits
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.taxonomy import LABELS
from tests.hud.conftest import gameplay_frames


def test_bootstrap_covers_all_labels_with_tight_rgba_assets(library_dir, library):
    table = pq.read_table(f"{library_dir}/assets.parquet")
    assert table.schema.equals(ASSETS_SCHEMA)
    top = [a for a in library if a.role != "icon"]
    assert {a.label for a in top} == set(LABELS) and len(top) == 3 * 21
    assert all(a.source == "procedural" and a.verified and a.renderable for a in library)
    for a in library:
        rgba = library.image(a.asset_id)
        assert rgba.shape == (a.height, a.width, 4)
        support = rgba[..., 3] >= ALPHA_MIN
        assert support[0].any() and support[-1].any() and support[:, 0].any() and support[:, -1].any()
        assert len(a.descriptor) == DIMENSIONS and a.scale_w == pytest.approx(a.width / 1280)
        for bar in a.structure.get("bars", []):
            x1, y1, x2, y2 = bar["box"]
            assert 0 <= x1 < x2 <= a.width and 0 <= y1 < y2 <= a.height and bar["kind"] in ("hp", "stm")
        for x1, y1, x2, y2 in a.structure.get("slots", []):
            assert 0 <= x1 < x2 <= a.width and 0 <= y1 < y2 <= a.height
    icons = library.icons()
    assert icons and all(library.get(i.parent_id).label == "inventory" for i in icons)


def test_bootstrap_is_deterministic_and_idempotent(tmp_path, library):
    first = bootstrap_library(tmp_path, per_label=3, seed=0)
    assert first["added"] == len(library)
    again = bootstrap_library(tmp_path, per_label=3, seed=0)
    assert again["added"] == 0 and again["already_present"] == 63
    other = AssetLibrary.open(tmp_path)
    some = sorted(library.assets)[:10]
    assert all(np.array_equal(other.image(i), library.image(i)) for i in some)


def test_pool_filters_verification_roles_and_icons(library):
    assets = list(library)
    bad = replace(assets[0], asset_id="x-low", verified=False)
    lib = AssetLibrary(assets + [bad], library.root)
    assert "x-low" not in {a.asset_id for a in lib.pool(bad.label)}
    assert "x-low" in {a.asset_id for a in lib.pool(bad.label, include_unverified=True)}
    assert all(a.role != "icon" for a in lib.pool("inventory"))
    assert {a.role for a in lib.pool("player_status", roles=["stamina"])} <= {"stamina"}


def make_asset(width, height, scale_w):
    return Asset("a", "crosshair", "crosshair", "procedural", width, height, scale_w, height / 720)


def test_aspect_fallback_keeps_only_small_misfits():
    box = limits(0.055, 0.085, 1.0, 1280, 720)  # crosshair limits; aspect range 0.40-2.50
    size, fallback = eligible_size(make_asset(40, 40, 40 / 1280), (0.4, 2.5), box, 1.0, 1280, 720, 0.04)
    assert size == (40, 40) and not fallback
    wide = make_asset(300, 30, 300 / 1280)  # aspect 10: breaks the rule but fits tiny
    size, fallback = eligible_size(wide, (0.4, 2.5), box, 1.0, 1280, 720, 0.04)
    assert fallback and size[0] * size[1] <= 0.04 * 1280 * 720
    huge = make_asset(1000, 100, 1000 / 1280)  # aspect 10 and fitted area above 4 %
    assert eligible_size(huge, (0.4, 2.5), (1100, 700), 1.0, 1280, 720, 0.04) == (None, False)


def test_a_missing_status_asset_gives_the_procedural_panel(library):
    no_status = AssetLibrary([a for a in library if a.label != "player_status"], library.root)
    for seed in range(30):
        rec = plan_sample(SeedStreams(seed), SynthProfile(), no_status)
        status = [w for w in rec["persistent"] if w["label"] == "player_status" and not w.get("suppressed")]
        if status:
            assert status[0]["asset_source"] == "procedural_panel" and status[0]["asset_id"] is None
            assert status[0]["status"]["mode"] == "procedural"
            return
    pytest.fail("no sample spawned player_status")


def test_descriptor_is_unit_length_and_ignores_transparent_pixels():
    rng = np.random.default_rng(0)
    rgb = (rng.random((40, 60, 3)) * 255).astype(np.uint8)
    alpha = np.zeros((40, 60), np.uint8)
    alpha[10:30, 10:50] = 255
    d = appearance_descriptor(rgb, alpha)
    assert d.shape == (DIMENSIONS,) and np.linalg.norm(d) == pytest.approx(1.0, abs=1e-5)
    changed = rgb.copy()
    changed[alpha == 0] = 0
    assert np.allclose(appearance_descriptor(changed, alpha), d)
    assert not np.allclose(appearance_descriptor(rgb), d)
    assert not appearance_descriptor(rgb, np.zeros_like(alpha)).any()


def test_keyframes_follow_appendix_d():
    assert len(probe_indices(150, 8)) == 16 and len(probe_indices(8, 8)) == 8 and len(probe_indices(150, 3)) == 10
    vecs = np.eye(5, dtype=np.float32)[[0, 0, 0, 1, 2, 3]]
    vecs[:3] += np.float32(0.01) * np.arange(3)[:, None]
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    chosen = select_keyframes(vecs, 4)
    assert chosen[0] in (0, 1, 2)  # nearest the median direction
    assert set(chosen[1:]) == {3, 4, 5}  # then the farthest points
    v = np.stack([np.eye(3, dtype=np.float32)[0]] * 3)
    assert profile_similarity(np.array([1, 0, 0], np.float32), v) == pytest.approx(1.0)
    assert temperature(np.array([0.1, 0.105])) == 0.025 and temperature(np.array([0.0, 1.0])) == pytest.approx(0.24)


def test_aesthetic_matching_prefers_assets_that_look_like_the_clip(library):
    frames = np.stack(gameplay_frames(320, 180, 30, "topdown"))
    idx = probe_indices(len(frames), 8)
    look = VideoAppearance.from_frames(frames[idx], list(idx), 8)
    prof = SynthProfile(aesthetic=True)
    rec = plan_sample(SeedStreams(1), prof, library, appearance=look)
    assert rec["aesthetic"]["keyframes"] and len(rec["aesthetic"]["keyframes"]) == 8
    matched = [w for w in rec["persistent"] if w.get("matching")]
    assert matched
    for w in matched:
        m = w["matching"]
        assert m["tau"] >= 0.025 and m["alternatives"] and m["alternatives"][0]["score"] >= m["score"] - 1e-9
    plain = plan_sample(SeedStreams(1), SynthProfile(), library)
    assert all(w.get("matching") is None for w in plain["persistent"] if "skipped" not in w)


def test_neural_descriptor_loads_local_weights(tmp_path):
    import torch
    import torchvision

    torch.manual_seed(0)
    path = tmp_path / "effnet.pt"
    torch.save(torchvision.models.efficientnet_b0(weights=None).state_dict(), path)
    neural = NeuralDescriptor(str(path))
    rgb = (np.random.default_rng(0).random((64, 80, 3)) * 255).astype(np.uint8)
    v = neural(rgb)
    assert v.shape == (1280,) and np.linalg.norm(v) == pytest.approx(1.0, abs=1e-4)
    assert np.allclose(neural(rgb), v)
    assert not np.allclose(neural(255 - rgb), v)
