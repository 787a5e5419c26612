"""Text blocks (kill feed, chat, console, corner readouts): exact masks and pairs, layout, labels."""

from __future__ import annotations

import numpy as np
import pytest

from g2w.cases.annotation import AnnotationError, parse_annotation
from g2w.fonts import FACES, TEXT_SAFE, available_faces, face_path
from g2w.hud.annotate import annotate_record
from g2w.hud.composite import Compositor
from g2w.hud.layers import LayerSource
from g2w.hud.patches import visible_part
from g2w.hud.plan import plan_sample
from g2w.hud.profile import SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.hud.text_blocks import LABELS, plan_text_blocks, visible_lines
from g2w.hud.text_draw import text_patch
from g2w.taxonomy import LABELS as TAXONOMY

from .conftest import gameplay_frames

PROFILE = SynthProfile.tiny(width=480, height=270, duration_s=1.0)


def union_mask(layers, width: int, height: int) -> np.ndarray:
    """255 wherever some layer's composited alpha is non-zero, from the layers alone."""
    mask = np.zeros((height, width), np.uint8)
    for layer in layers:
        h, w = layer.rgba.shape[:2]
        src, dst = visible_part(layer.x, layer.y, w, h, width, height)
        if not dst.empty:
            mask[dst.y1 : dst.y2, dst.x1 : dst.x2][layer.rgba[src.y1 : src.y2, src.x1 : src.x2, 3] > 0] = 255
    return mask


def reference(frame: np.ndarray, layers) -> np.ndarray:
    """Whole-frame straight-alpha over in float32, layer by layer, rounded once."""
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


def _record_with(library, kind: str) -> dict:
    for seed in range(300):
        rec = plan_sample(SeedStreams(seed), PROFILE, library)
        if any(b["kind"] == kind for b in rec["text"]["blocks"]):
            return rec
    raise AssertionError(f"no {kind} block in 300 seeds")


def test_catalogue_faces_are_installed_and_draw_the_safe_characters():
    assert set(available_faces()) == set(FACES)  # both sources are installed by the project itself
    for name in FACES:
        assert face_path(name).endswith(".ttf")
    style = {"face": "cm-sans", "size": 18, "edge": "plain", "opacity": 1.0}
    assert text_patch([["".join(sorted(TEXT_SAFE)), [255, 255, 255]]], style)[..., 3].any()


@pytest.mark.parametrize("kind", ["kill_feed", "chat", "console", "fps", "spectator"])
def test_mask_is_exactly_the_text_and_the_pair_is_an_exact_composite(library, kind):
    rec = _record_with(library, kind)
    source = LayerSource(rec, library.image)
    block = next(b for b in rec["text"]["blocks"] if b["kind"] == kind)
    frames = gameplay_frames(PROFILE.width, PROFILE.height, PROFILE.frame_count)
    compositor = Compositor("cpu")
    seen = 0
    for index in range(0, PROFILE.frame_count, 3):
        layers = source.frame(index)
        hud, mask = compositor(frames[index], layers)
        assert np.array_equal(mask, union_mask(layers, PROFILE.width, PROFILE.height))
        assert np.array_equal(hud, reference(frames[index], layers))
        assert np.array_equal(hud[mask == 0], frames[index][mask == 0])
        drawn = {la.instance for la in layers}
        for line in visible_lines(block, index):
            assert line["id"] in drawn  # every visible line is a layer, so it is in the mask
            seen += 1
    assert seen > 0


def test_lines_stack_from_the_corner_in_arrival_order(library):
    rec = _record_with(library, "kill_feed")
    block = next(b for b in rec["text"]["blocks"] if b["kind"] == "kill_feed")
    source = LayerSource(rec, library.image)
    for index in range(PROFILE.frame_count):
        ids = [ln["id"] for ln in visible_lines(block, index)]
        ys = [la.y for la in source.frame(index) if la.instance in ids]
        step = block["line_height"] if block["grow"] == "down" else -block["line_height"]
        assert ys == [ys[0] + k * step for k in range(len(ys))] if ys else True
        assert len(ids) <= block["max_lines"]


def test_annotation_labels_text_and_translucent_strips(library):
    for seed in range(60):
        rec = plan_sample(SeedStreams(seed), PROFILE, library)
        if any(b["style"]["strip"] for b in rec["text"]["blocks"]):
            break
    else:
        raise AssertionError("no strip in 60 seeds")
    ann = annotate_record(rec, library.image)
    parsed = parse_annotation(ann)
    by_id = {i["id"]: i for i in ann["instances"]}
    for block in rec["text"]["blocks"]:
        assert LABELS[block["kind"]] in TAXONOMY
        for line in block["lines"]:
            if line["id"] not in by_id:
                continue
            inst, p = by_id[line["id"]], parsed.instances[line["id"]]
            assert inst["label"] == block["label"] and inst["role"] == block["kind"]
            if block["style"]["strip"]:
                assert p.translucent and p.opacity == pytest.approx(block["style"]["strip"]["opacity"])
            if inst["kind"] == "transient":
                assert inst["text"] == p.text == "".join(t for t, _ in line["spans"])
                assert set(inst["text"]) <= TEXT_SAFE
    bad = {**ann, "instances": [{**ann["instances"][0], "text": 5}]}
    with pytest.raises(AnnotationError, match="text must be a string"):
        parse_annotation(bad)


def test_plan_is_deterministic_and_varied():
    streams = SeedStreams(5)
    a = plan_text_blocks(streams, 1280, 720, 30.0, 150, [], 8)
    assert a == plan_text_blocks(streams, 1280, 720, 30.0, 150, [], 8)
    faces, edges, sizes = set(), set(), set()
    for seed in range(80):
        for b in plan_text_blocks(SeedStreams(seed), 1280, 720, 30.0, 150, [], 8)["blocks"]:
            faces.add(b["style"]["face"])
            edges.add(b["style"]["edge"])
            sizes.add(b["style"]["size"])
    assert len(faces) >= 8 and edges == {"outline", "shadow", "plain"} and len(sizes) >= 10


def test_text_blocks_off_draws_none(library):
    rec = plan_sample(SeedStreams(1), SynthProfile.tiny(text_blocks=False), library)
    assert rec["text"] is None
    source = LayerSource(rec, library.image)
    assert not any(la.instance.startswith("t_") for i in range(10) for la in source.frame(i))
