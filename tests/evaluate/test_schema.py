"""Strict judge-output validation (J.4): every way a reply can be rejected, and what passes."""

import copy
import json

import pytest

from g2w.evaluate.schema import ELEMENT_KEYS, FRAME_KEYS, parse_strict, response_schema, validate

PAIRS = [("f0000", "E0"), ("f0000", "E1"), ("f0001", "E0")]
SAMPLES = ["f0000", "f0001", "f0002"]  # f0002 has no elements but still needs a frame record


def _valid() -> dict:
    return {
        "elements": [
            {
                "sample_id": "f0000",
                "element_id": "E0",
                "removal": "removed",
                "artifact": "none",
                "confidence": 0.9,
                "note": "gone",
            },
            {
                "sample_id": "f0000",
                "element_id": "E1",
                "removal": "present",
                "artifact": "not_applicable",
                "confidence": 1,
                "note": "text left",
            },
            {
                "sample_id": "f0001",
                "element_id": "E0",
                "removal": "uncertain",
                "artifact": "not_applicable",
                "confidence": 0.0,
                "note": "",
            },
        ],
        "frames": [
            {"sample_id": s, "preservation": "preserved", "confidence": 0.8, "note": "wall edge aligned"}
            for s in SAMPLES
        ],
    }


def _check(obj_or_text):
    text = obj_or_text if isinstance(obj_or_text, str) else json.dumps(obj_or_text)
    return validate(text, PAIRS, SAMPLES)


def test_valid_reply_passes_and_is_returned():
    result = _check(_valid())
    assert result.ok and result.errors == [] and result.judgment == _valid()


def test_single_code_fence_is_unwrapped():
    assert _check("```json\n" + json.dumps(_valid()) + "\n```").ok
    assert not _check("Here you go:\n```json\n" + json.dumps(_valid()) + "\n```").ok


def _mutate(fn):
    obj = copy.deepcopy(_valid())
    fn(obj)
    return obj


CASES = {
    "not json": "removed, all good",
    "trailing text": json.dumps(_valid()) + " thanks",
    "two objects": json.dumps(_valid()) + json.dumps(_valid()),
    "top-level list": json.dumps([_valid()]),
    "NaN confidence": json.dumps(_valid()).replace('"confidence": 0.9', '"confidence": NaN'),
    "duplicate top-level key": json.dumps(_valid())[:-1] + ', "frames": []}',
    "duplicate element key": json.dumps(_valid()).replace('"note": "gone"', '"note": "gone", "note": "again"'),
    "missing top key": _mutate(lambda o: o.pop("frames")),
    "extra top key": _mutate(lambda o: o.update(summary="ok")),
    "elements not a list": _mutate(lambda o: o.update(elements={})),
    "element not an object": _mutate(lambda o: o["elements"].__setitem__(0, "E0")),
    "missing element key": _mutate(lambda o: o["elements"][0].pop("artifact")),
    "extra element key": _mutate(lambda o: o["elements"][0].update(label="hp")),
    "missing frame key": _mutate(lambda o: o["frames"][0].pop("note")),
    "extra frame key": _mutate(lambda o: o["frames"][0].update(element_id="E0")),
    "bad removal": _mutate(lambda o: o["elements"][0].update(removal="gone")),
    "bad artifact": _mutate(lambda o: o["elements"][0].update(artifact="small")),
    "bad preservation": _mutate(lambda o: o["frames"][0].update(preservation="same")),
    "confidence above 1": _mutate(lambda o: o["elements"][0].update(confidence=1.01)),
    "confidence below 0": _mutate(lambda o: o["frames"][0].update(confidence=-0.1)),
    "confidence string": _mutate(lambda o: o["elements"][0].update(confidence="0.9")),
    "confidence bool": _mutate(lambda o: o["elements"][0].update(confidence=True)),
    "note not a string": _mutate(lambda o: o["elements"][0].update(note=None)),
    "removed with not_applicable": _mutate(lambda o: o["elements"][0].update(artifact="not_applicable")),
    "present with artifact": _mutate(lambda o: o["elements"][1].update(artifact="minor")),
    "uncertain with artifact": _mutate(lambda o: o["elements"][2].update(artifact="uncertain")),
    "unexpected element": _mutate(lambda o: o["elements"][2].update(element_id="E7")),
    "element for unknown sample": _mutate(lambda o: o["elements"][2].update(sample_id="f0009")),
    "duplicate element": _mutate(lambda o: o["elements"].append(dict(o["elements"][0]))),
    "missing element": _mutate(lambda o: o["elements"].pop()),
    "duplicate frame": _mutate(lambda o: o["frames"].append(dict(o["frames"][0]))),
    "missing frame (no elements)": _mutate(lambda o: o["frames"].pop()),
    "unexpected frame": _mutate(lambda o: o["frames"][2].update(sample_id="f0005")),
    "numeric ids": _mutate(lambda o: o["elements"][0].update(element_id=0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_rejections(name):
    result = _check(CASES[name])
    assert not result.ok and result.errors and result.judgment is None


def test_errors_name_the_problem():
    assert "duplicate key 'note'" in _check(CASES["duplicate element key"]).errors[0]
    assert any("missing" in e for e in _check(CASES["missing element"]).errors)
    assert any("unexpected keys ['label']" in e for e in _check(CASES["extra element key"]).errors)


def test_parse_strict_rejects_duplicates_anywhere():
    with pytest.raises(ValueError):
        parse_strict('{"a": {"b": 1, "b": 2}}')
    assert parse_strict('  {"a": 1}\n') == {"a": 1}


def test_response_schema_lists_ids_and_counts():
    schema = response_schema(PAIRS, SAMPLES)
    assert schema["additionalProperties"] is False and schema["required"] == ["elements", "frames"]
    element = schema["properties"]["elements"]
    assert element["minItems"] == element["maxItems"] == 3
    assert element["items"]["required"] == list(ELEMENT_KEYS)
    assert element["items"]["properties"]["element_id"]["enum"] == ["E0", "E1"]
    frame = schema["properties"]["frames"]
    assert frame["items"]["properties"]["sample_id"]["enum"] == SAMPLES and frame["items"]["required"] == list(
        FRAME_KEYS
    )
    assert response_schema([], ["f0000"])["properties"]["elements"] == {"type": "array", "maxItems": 0}
