"""Cases (Table 15) from a synthesis folder and from wild JSONL, and annotation parsing."""

import json
import os

import pytest

from g2w.cases.annotation import AnnotationError, load_annotation, parse_annotation
from g2w.cases.case import Case, CasesError, jsonl_item, load_cases


def test_synthesis_folder_gives_ok_samples_with_reference(synth_out):
    cases = load_cases(synth_out)
    assert [c.case_id for c in cases] == ["s000", "s001"]  # the error row is not a case
    c = cases[0]
    assert c.split == "synthetic" and c.source.endswith("samples/s000/hud.mp4")
    assert c.reference.endswith("clean.mp4") and c.mask.endswith("mask.mkv")
    assert (c.width, c.height, c.fps, c.frame_count) == (320, 180, 30.0, 90)
    assert Case.from_json(c.to_json()) == c


def test_a_listing_written_from_cases_loads_back_the_same_cases(synth_out, tmp_path):
    cases = load_cases(synth_out)
    listing = tmp_path / "cases.jsonl"
    listing.write_text("".join(json.dumps(jsonl_item(c)) + "\n" for c in cases[:1]))
    assert load_cases(str(listing)) == cases[:1]


def test_wild_jsonl_resolves_paths_relative_to_the_file(wild_cases):
    cases = load_cases(wild_cases)
    assert [c.split for c in cases] == ["wild", "wild"] and cases[0].reference is None
    assert os.path.exists(cases[0].source) and os.path.exists(cases[0].annotation)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"case_id": "a", "video": "v.mp4"}', "needs case_id, video and annotation"),
        ('{"case_id": "../x", "video": "v.mp4", "annotation": "a.json"}', "plain file name"),
        ('{"case_id": "a", "video": "v.mp4", "annotation": "a.json", "split": "test"}', "split"),
        ('{"case_id": "a", "video": "v.mp4", "annotation": "a.json", "reference": "r.mp4"}', "no clean reference"),
        ("not json", "not JSON"),
    ],
)
def test_bad_jsonl_listing_is_refused(tmp_path, line, message):
    path = tmp_path / "cases.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(CasesError, match=message):
        load_cases(path)


def test_duplicate_case_ids_are_refused(tmp_path):
    line = '{"case_id": "a", "video": "v.mp4", "annotation": "a.json"}\n'
    (tmp_path / "cases.jsonl").write_text(line * 2)
    with pytest.raises(CasesError, match="duplicate"):
        load_cases(tmp_path / "cases.jsonl")


def test_annotation_loads_instances_and_frames(synth_out):
    ann = load_annotation(os.path.join(synth_out, "samples", "s000", "annotation.json"))
    assert (ann.width, ann.height, ann.frame_count) == (320, 180, 90)
    assert ann.element_order()[:3] == ["hp", "score", "quest"]
    badge = [o for o in ann.objects_at(30) if o.id == "badge"][0]
    assert badge.box[2] == 320 and badge.visible_fraction < 1  # clipped at the right edge
    assert "badge" not in [o.id for o in ann.objects_at(0)]  # transient: not yet on screen
    assert ann.objects_at(1000) == ()


def _annotation(**changes):
    base = {
        "version": 1,
        "width": 100,
        "height": 50,
        "fps": 30.0,
        "frame_count": 2,
        "coordinates": "half-open xyxy",
        "alpha_threshold": 8,
        "instances": [
            {
                "id": "a",
                "label": "crosshair",
                "role": "crosshair",
                "kind": "persistent",
                "asset_id": None,
                "asset_source": None,
                "parent": None,
            }
        ],
        "frames": [{"frame": 0, "objects": [{"id": "a", "box": [10, 10, 20, 20], "visible_fraction": 1.0}]}],
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"extra": 1}, "keys"),
        ({"coordinates": "xywh"}, "coordinates"),
        ({"frames": [{"frame": 0, "objects": [{"id": "a", "box": [10, 10, 120, 20]}]}]}, "inside"),
        ({"frames": [{"frame": 0, "objects": [{"id": "a", "box": [10, 10, 10, 20]}]}]}, "non-empty"),
        ({"frames": [{"frame": 0, "objects": [{"id": "zz", "box": [1, 1, 2, 2]}]}]}, "unknown id"),
        ({"frames": [{"frame": 5, "objects": []}]}, "outside"),
        ({"frames": [{"frame": 0, "objects": []}, {"frame": 0, "objects": []}]}, "twice"),
        ({"instances": [{"id": "a", "label": "minimap", "role": "x", "kind": "persistent"}]}, "21 taxonomy labels"),
    ],
)
def test_broken_annotations_raise_annotation_error(changes, message):
    with pytest.raises(AnnotationError, match=message):
        parse_annotation(_annotation(**changes))


def test_unreadable_annotation_file(tmp_path):
    (tmp_path / "a.json").write_text("{")
    with pytest.raises(AnnotationError, match="not readable JSON"):
        load_annotation(tmp_path / "a.json")
    with pytest.raises(AnnotationError, match="no such"):
        load_annotation(tmp_path / "missing.json")
    assert parse_annotation(json.loads(json.dumps(_annotation()))).instances["a"].label == "crosshair"
