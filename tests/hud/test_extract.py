"""Extraction: temporal matting recovers a known overlay; GrabCut for images; structure; errors."""

import json

import cv2
import numpy as np
import pytest
from PIL import Image

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import status
from g2w.hud.bootstrap.draw import finish, palette, paste
from g2w.hud.bootstrap.icons import item_icon
from g2w.hud.extract import ExtractConfig, extract_assets, load_annotations
from g2w.hud.structure import detect_bars, split_inventory
from tests.hud.conftest import gameplay_frames, write_clip

BOX = (60, 40, 180, 110)  # where the overlay sits in the 320x180 test video


def known_overlay() -> np.ndarray:
    """An opaque ring and cross, a half-transparent panel, transparent corners: 120 x 70."""
    ov = np.zeros((70, 120, 4), np.uint8)
    cv2.rectangle(ov, (10, 10), (109, 59), (20, 30, 60, 128), -1)  # translucent panel
    cv2.rectangle(ov, (10, 10), (109, 59), (240, 240, 250, 255), 3)  # opaque frame
    cv2.line(ov, (30, 35), (90, 35), (250, 200, 40, 255), 5)  # opaque bar
    cv2.circle(ov, (60, 35), 12, (230, 40, 40, 255), -1)
    return ov


@pytest.fixture(scope="module")
def overlay_video(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("extract")
    ov = known_overlay()
    a = ov[..., 3:4].astype(np.float32) / 255
    x1, y1, x2, y2 = BOX
    frames = []
    for f in gameplay_frames(320, 180, 300, "topdown", seed=2):  # 10 s of scrolling world
        f = f.astype(np.float32)
        f[y1:y2, x1:x2] = ov[..., :3] * a + f[y1:y2, x1:x2] * (1 - a)
        frames.append(np.rint(f).astype(np.uint8))
    write_clip(tmp / "overlay.mp4", frames)
    Image.fromarray(frames[150]).save(tmp / "still.png")
    return tmp, ov


def test_temporal_matting_recovers_a_known_overlays_alpha(overlay_video):
    tmp, truth = overlay_video
    ann = tmp / "ann.json"
    ann.write_text(
        json.dumps(
            [
                {
                    "video": "overlay.mp4",
                    "time": 5.0,
                    "boxes": [{"label": "player_status", "role": "health", "box": list(BOX)}],
                }
            ]
        )
    )
    summary = extract_assets(str(ann), str(tmp / "lib"))
    assert summary["assets"] == 1 and summary["errors"] == [] and summary["temporal_matting"] == 1
    lib = AssetLibrary.open(tmp / "lib")
    (asset,) = list(lib)
    assert asset.verified and asset.renderable and asset.source == "extracted"
    assert asset.confidence >= 0.5 and asset.extraction_method == "temporal_matting"
    est = np.zeros(truth.shape[:2], np.float32)
    x1, y1, x2, y2 = asset.source_box
    est[y1 - BOX[1] : y2 - BOX[1], x1 - BOX[0] : x2 - BOX[0]] = lib.image(asset.asset_id)[..., 3] / 255.0
    true_a = truth[..., 3] / 255.0
    assert np.abs(est - true_a).mean() < 0.1
    assert np.minimum(est, true_a).sum() / np.maximum(est, true_a).sum() > 0.8
    half = (true_a > 0.4) & (true_a < 0.6)
    assert abs(float(est[half].mean()) - 0.5) < 0.15  # the translucent panel comes out translucent
    opaque = true_a == 1
    rgb = np.zeros(truth.shape[:2] + (3,), np.float32)
    rgb[y1 - BOX[1] : y2 - BOX[1], x1 - BOX[0] : x2 - BOX[0]] = lib.image(asset.asset_id)[..., :3]
    assert np.abs(rgb[opaque] - truth[..., :3][opaque]).mean() < 12
    assert asset.center_x == pytest.approx((x1 + x2) / 2 / 320) and asset.scale_w == pytest.approx((x2 - x1) / 320)


def test_lone_images_use_grabcut_and_bad_entries_become_errors(overlay_video):
    tmp, _ = overlay_video
    ann = tmp / "ann.jsonl"
    lines = [
        {
            "image": "still.png",
            "boxes": [
                {"label": "player_status", "box": list(BOX)},
                {"label": "not_a_label", "box": list(BOX)},
                {"label": "crosshair", "box": [300, 170, 400, 260]},
            ],
        },
        {"video": "missing.mp4", "time": 1.0, "boxes": [{"label": "map_radar", "box": [0, 0, 50, 50]}]},
    ]
    ann.write_text("\n".join(json.dumps(x) for x in lines))
    summary = extract_assets(str(ann), str(tmp / "lib2"))
    assert summary["assets"] == 1 and summary["grabcut"] == 1
    reasons = sorted(e["reason"] for e in summary["errors"])
    assert reasons == ["bad_annotation", "bad_box", "missing_file"]
    (asset,) = list(AssetLibrary.open(tmp / "lib2"))
    assert asset.extraction_method == "grabcut" and asset.confidence <= 0.5
    again = extract_assets(str(ann), str(tmp / "lib2"))  # idempotent: same ids, same rows
    assert again["assets"] == 1 and len(AssetLibrary.open(tmp / "lib2")) == 1


def test_static_background_falls_back_to_grabcut_with_low_confidence(tmp_path):
    ov = known_overlay()
    still = gameplay_frames(320, 180, 1, "corridor")[0]
    a = ov[..., 3:4].astype(np.float32) / 255
    x1, y1, x2, y2 = BOX
    frame = still.astype(np.float32)
    frame[y1:y2, x1:x2] = ov[..., :3] * a + frame[y1:y2, x1:x2] * (1 - a)
    write_clip(tmp_path / "frozen.mp4", [np.rint(frame).astype(np.uint8)] * 60)
    ann = tmp_path / "a.json"
    ann.write_text(
        json.dumps({"video": "frozen.mp4", "time": 1.0, "boxes": [{"label": "watermark", "box": list(BOX)}]})
    )
    summary = extract_assets(str(ann), str(tmp_path / "lib"), ExtractConfig(span_s=2.0))
    (asset,) = list(AssetLibrary.open(tmp_path / "lib"))
    assert asset.extraction_method == "grabcut" and "static_background" in asset.notes
    assert summary["grabcut"] == 1


def test_annotation_files_are_validated():
    with pytest.raises(ValueError, match="needs a 'video' or 'image'"):
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([{"boxes": []}], f)
        load_annotations(f.name)


def filled_hotbar(seed: int):
    rng = np.random.default_rng(seed)
    _, img, structure = status.hotbar(rng, palette(rng))[0]
    filled = []
    for k, (x1, y1, x2, y2) in enumerate(structure["slots"]):
        if rng.random() < 0.6:
            s = int((x2 - x1) * 0.8)
            paste(img, item_icon(rng, s), x1 + (x2 - x1 - s) / 2, y1 + (y2 - y1 - s) / 2)
            filled.append(k)
    return finish(img), structure["slots"], filled


def test_inventory_split_finds_the_slot_row_a_clean_bar_and_the_icons():
    ok = 0
    for seed in range(10):
        rgba, slots, filled = filled_hotbar(seed)
        split = split_inventory(rgba)
        if not split.ok:
            assert split.reason in ("no_repeated_slot_row", "too_few_slots", "no_confident_empty_slot")
            continue
        ok += 1
        assert abs(len(split.slots) - len(slots)) <= 1
        pitch = slots[1][0] - slots[0][0]
        assert abs(split.diagnostics["period"] - pitch) <= 1
        assert 0 < len(split.icons) <= len(filled)
        for _, icon in split.icons:
            h, w = icon.shape[:2]
            assert w >= 8 and h >= 8 and 0.15 <= w / h <= 5.8
        # the clean bar's slots all look like the empty template
        crops = [split.bar[y1:y2, x1:x2].astype(int) for x1, y1, x2, y2 in split.slots]
        assert max(np.abs(c - crops[0]).mean() for c in crops) < 1e-9
    assert ok >= 7


def test_an_ambiguous_row_is_skipped_not_split():
    rng = np.random.default_rng(0)
    noise = (rng.random((50, 300, 4)) * 255).astype(np.uint8)
    noise[..., 3] = 255
    split = split_inventory(noise)
    assert not split.ok and split.reason


def test_status_bar_geometry_is_found_on_drawn_panels():
    right = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        pal = palette(rng)
        for maker, kinds in (
            (status.health, ("hp", "stm")),
            (status.stamina, ("stm",)),
            (status.status_panel, ("hp", "stm")),
        ):
            _, img, structure = maker(rng, pal)[0]
            found = detect_bars(finish(img), kinds)
            right += len(found) == len(structure["bars"]) and all(
                f["kind"] == t["kind"] and max(abs(a - b) for a, b in zip(f["box"], t["box"])) <= 2
                for f, t in zip(found, structure["bars"])
            )
    assert right >= 55  # of 60
