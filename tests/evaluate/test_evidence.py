"""Evidence attachments (J.3): order, layouts, untouched detail pixels, mapping JSON, hashing."""

import json

import numpy as np

from g2w.cases.annotation import parse_annotation
from g2w.evaluate.evidence import HEADER_H, SEPARATOR, build_evidence, load_evidence, mapping_text, write_evidence
from g2w.evaluate.plan import make_plan, plan_from_dict


def _annotation(width, height, frames):
    instances = [
        {
            "id": i,
            "label": lab,
            "role": lab,
            "kind": "persistent",
            "asset_id": None,
            "asset_source": None,
            "parent": None,
        }
        for i, lab in (("wide", "match_status"), ("tall", "teammate_roster"), ("big", "map_radar"))
    ]
    return parse_annotation(
        {
            "version": 1,
            "width": width,
            "height": height,
            "fps": 10.0,
            "frame_count": frames,
            "coordinates": "half-open xyxy",
            "alpha_threshold": 8,
            "instances": instances,
            "frames": [
                {
                    "frame": i,
                    "objects": [
                        {"id": "wide", "box": [10, 10, 70, 20], "visible_fraction": 1.0},
                        {"id": "tall", "box": [150, 20, 160, 100], "visible_fraction": 1.0},
                        {"id": "big", "box": [0, 0, 160, 110], "visible_fraction": 1.0},
                    ]
                    if i % 5 == 0 and i < 10
                    else [],
                }
                for i in range(frames)
            ],
        }
    )


def _frames(n, w, h, seed):
    """Blocky random frames: distinct per seed and index, cheap to PNG-encode."""
    rng = np.random.default_rng(seed)
    return {
        i: np.kron(rng.integers(0, 256, (h // 8, w // 8, 3), dtype=np.uint8), np.ones((8, 8, 1), np.uint8))
        for i in range(n)
    }


def test_order_layouts_and_untouched_pixels():
    ann = _annotation(400, 240, 15)  # 1.5 s at 10 fps: samples at 0, 0.5, 1.0 s
    plan = make_plan(ann, 15, 10.0, 15, 10.0, (400, 240))
    src, edt = _frames(15, 400, 240, 1), _frames(15, 400, 240, 2)
    atts = build_evidence(plan, src, edt)
    kinds = [a.meta["kind"] for a in atts]
    assert kinds == ["overall"] * 3 + ["element"] * 6  # elements only at frames 0 and 5
    assert [a.meta["image"] for a in atts] == list(range(1, 10))
    assert [(a.meta["sample_id"], a.meta["element_id"]) for a in atts[3:]] == [
        ("f0000", "E0"),
        ("f0000", "E1"),
        ("f0000", "E2"),
        ("f0001", "E0"),
        ("f0001", "E1"),
        ("f0001", "E2"),
    ]

    over = atts[0]
    assert over.meta["layout"] == "vertical"  # landscape: ORIGINAL above EDITED
    assert over.image.shape == (2 * (240 + HEADER_H) + SEPARATOR, 400, 3)
    assert over.meta["edited_rect"] == [0, 2 * HEADER_H + 240 + SEPARATOR, 400, 2 * (HEADER_H + 240) + SEPARATOR]
    x1, y1, x2, y2 = over.meta["original_rect"]
    top = over.image[y1:y2, x1:x2]
    box = over.meta["elements"][0]["box"]
    # Red outlines sit outside the boxes: the pixels inside are the frame's own.
    assert np.array_equal(top[box[1] : box[3], box[0] : box[2]], src[0][box[1] : box[3], box[0] : box[2]])
    assert tuple(top[box[1] - 1, box[0] + 5]) == (255, 0, 0)
    sep = over.image[y2 : y2 + SEPARATOR]
    assert sep.max() == 0  # black separator

    wide, tall, big = atts[3], atts[4], atts[5]
    assert [p["panel"] for p in wide.meta["panels"]] == ["CONTEXT", "EXACT TARGET"]  # small: exact pair
    assert [p["panel"] for p in big.meta["panels"]] == ["CONTEXT"]  # 160 px side: no exact pair
    assert wide.meta["panels"][0]["layout"] == "vertical" and tall.meta["panels"][0]["layout"] == "horizontal"
    for att in (wide, tall):
        for panel in att.meta["panels"]:
            cx1, cy1, cx2, cy2 = panel["crop"]
            for side, frames in (("original_rect", src), ("edited_rect", edt)):
                rx1, ry1, rx2, ry2 = panel[side]
                # Detail pixels are exact crops: nothing drawn on them, never rescaled.
                assert np.array_equal(att.image[ry1:ry2, rx1:rx2], frames[0][cy1:cy2, cx1:cx2])
            tx1, ty1, tx2, ty2 = panel["target_in_crop"]
            assert (tx1 + cx1, ty1 + cy1, tx2 + cx1, ty2 + cy1) == tuple(att.meta["box"])


def test_portrait_canvas_puts_pairs_side_by_side():
    ann = _annotation(240, 400, 5)
    plan = make_plan(ann, 5, 10.0, 5, 10.0, (240, 400))
    atts = build_evidence(plan, _frames(5, 240, 400, 3), _frames(5, 240, 400, 4))
    meta = atts[0].meta
    assert meta["layout"] == "horizontal"
    ox1, oy1, ox2, oy2 = meta["original_rect"]
    ex1, ey1, ex2, ey2 = meta["edited_rect"]
    assert (oy1, oy2) == (ey1, ey2) == (HEADER_H, HEADER_H + 400)  # side by side, same rows
    assert ex1 >= ox2 + SEPARATOR and (ox2 - ox1, ex2 - ex1) == (240, 240)
    assert atts[0].image[oy1:oy2, ox2:ex1].max() == 0  # black between the sides


def test_write_load_roundtrip_and_stable_hash(tmp_path):
    ann = _annotation(400, 240, 15)
    plan = make_plan(ann, 15, 10.0, 15, 10.0, (400, 240))
    src, edt = _frames(15, 400, 240, 1), _frames(15, 400, 240, 2)
    a = write_evidence(str(tmp_path / "a"), plan, build_evidence(plan, src, edt), fingerprint="x")
    b = write_evidence(str(tmp_path / "b"), plan, build_evidence(plan, src, edt), fingerprint="x")
    assert a.sha256 == b.sha256 and len(a.files) == 9
    loaded = load_evidence(str(tmp_path / "a"))
    assert loaded.sha256 == a.sha256 and loaded.fingerprint == "x" and loaded.mapping["image_count"] == 9
    c = write_evidence(str(tmp_path / "c"), plan, build_evidence(plan, src, _frames(15, 400, 240, 9)))
    assert c.sha256 != a.sha256
    (tmp_path / "a" / "0003.png").unlink()
    assert load_evidence(str(tmp_path / "a")) is None  # incomplete evidence is rebuilt
    text = mapping_text(loaded.mapping)
    assert json.loads(text) == loaded.mapping and text.count("\n") >= 9
    assert plan_from_dict(json.loads(json.dumps(plan.to_dict()))) == plan
