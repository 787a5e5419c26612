"""The judge's output schema and its strict validation (Appendix J.4).

A judgment is one JSON object with exactly two keys:

    {"elements": [{"sample_id", "element_id", "removal", "artifact", "confidence", "note"}, ...],
     "frames":   [{"sample_id", "preservation", "confidence", "note"}, ...]}

Validation rejects anything else: text around the object, duplicate keys anywhere (checked
while parsing, since a dict would silently keep the last one), missing, extra or unexpected
keys, values outside the allowed sets, a confidence that is not a number in [0, 1], a
(sample_id, element_id) pair that was not asked for or is repeated or missing, and a frame
record that is repeated or missing. It also enforces the prompt's pairing rule: "removed"
carries a fill rating (none/minor/major/uncertain), "present"/"uncertain" carry
"not_applicable"; metrics are only well defined under that rule.

The one leniency is framing: a reply wrapped in a single Markdown code fence is unwrapped first,
because many chat models add one when the server cannot enforce `response_format`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

REMOVAL = ("removed", "present", "uncertain")
ARTIFACT = ("none", "minor", "major", "uncertain", "not_applicable")
FILL_RATINGS = ("none", "minor", "major", "uncertain")
PRESERVATION = ("preserved", "minor_change", "major_change", "invalid")
ELEMENT_KEYS = ("sample_id", "element_id", "removal", "artifact", "confidence", "note")
FRAME_KEYS = ("sample_id", "preservation", "confidence", "note")
TOP_KEYS = ("elements", "frames")
# Extra judge calls after a reply fails validation, before the video is recorded as invalid.
# 0 is the paper's protocol (J.6: a single judge call per video); more is an explicit option.
DEFAULT_SCHEMA_RETRIES = 0

_FENCE = re.compile(r"^```(?:json|JSON)?[ \t]*\n(.*)\n```$", re.DOTALL)


class DuplicateKeyError(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, object]]) -> dict:
    keys = [k for k, _ in pairs]
    seen = set()
    for k in keys:
        if k in seen:
            raise DuplicateKeyError(f"duplicate key {k!r}")
        seen.add(k)
    return dict(pairs)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def parse_strict(text: str) -> object:
    """Decode one JSON value, rejecting duplicate keys, NaN/Infinity and trailing text."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    return json.loads(body, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)


@dataclass
class Validation:
    ok: bool
    errors: list[str] = field(default_factory=list)
    judgment: dict | None = None

    def to_dict(self) -> dict:
        return {"ok": self.ok, "errors": self.errors}


def _check_keys(obj, keys: tuple[str, ...], where: str, errors: list[str]) -> bool:
    if not isinstance(obj, dict):
        errors.append(f"{where}: not an object")
        return False
    missing = [k for k in keys if k not in obj]
    extra = [k for k in obj if k not in keys]
    if missing:
        errors.append(f"{where}: missing keys {missing}")
    if extra:
        errors.append(f"{where}: unexpected keys {extra}")
    return not missing and not extra


def _check_common(rec: dict, where: str, errors: list[str]) -> None:
    conf = rec["confidence"]
    if isinstance(conf, bool) or not isinstance(conf, (int, float)) or not math.isfinite(conf) or not 0 <= conf <= 1:
        errors.append(f"{where}: confidence {conf!r} is not a number in [0, 1]")
    if not isinstance(rec["note"], str):
        errors.append(f"{where}: note must be a string")


def _element_values(rec: dict, where: str, errors: list[str]) -> None:
    if rec["removal"] not in REMOVAL:
        errors.append(f"{where}: removal {rec['removal']!r} not in {list(REMOVAL)}")
    if rec["artifact"] not in ARTIFACT:
        errors.append(f"{where}: artifact {rec['artifact']!r} not in {list(ARTIFACT)}")
    elif rec["removal"] == "removed" and rec["artifact"] not in FILL_RATINGS:
        errors.append(f"{where}: a removed element needs an artifact rating in {list(FILL_RATINGS)}")
    elif rec["removal"] in ("present", "uncertain") and rec["artifact"] != "not_applicable":
        errors.append(f"{where}: artifact must be 'not_applicable' when removal is {rec['removal']!r}")


def _frame_values(rec: dict, where: str, errors: list[str]) -> None:
    if rec["preservation"] not in PRESERVATION:
        errors.append(f"{where}: preservation {rec['preservation']!r} not in {list(PRESERVATION)}")


def _check_records(
    records: list, what: str, keys: tuple[str, ...], check_values, identity, expected: list, errors: list[str]
) -> None:
    """Each record well formed, and exactly one per expected identity: none unexpected,
    none repeated, none missing."""
    wanted, seen = set(expected), set()
    for n, rec in enumerate(records):
        where = f"{what}[{n}]"
        if not _check_keys(rec, keys, where, errors):
            continue
        _check_common(rec, where, errors)
        check_values(rec, where, errors)
        key = identity(rec)
        if not all(isinstance(part, str) for part in (key if isinstance(key, tuple) else (key,))):
            errors.append(f"{where}: ids must be strings")
        elif key not in wanted:
            errors.append(f"{where}: unexpected record {key!r}")
        elif key in seen:
            errors.append(f"{where}: duplicate record {key!r}")
        else:
            seen.add(key)
    missing = [k for k in expected if k not in seen]
    if missing:
        errors.append(f"{what}: missing {len(missing)} expected records, e.g. {missing[:3]}")


def validate(text: str, expected_pairs: list[tuple[str, str]], sample_ids: list[str]) -> Validation:
    """Check a raw reply against the schema and the expected (sample, element) pairs."""
    try:
        obj = parse_strict(text)
    except DuplicateKeyError as exc:
        return Validation(False, [f"reply has a {exc}"])
    except ValueError as exc:
        return Validation(False, [f"reply is not a single JSON object: {exc}"])
    errors: list[str] = []
    if not _check_keys(obj, TOP_KEYS, "reply", errors):
        return Validation(False, errors)
    for key in TOP_KEYS:
        if not isinstance(obj[key], list):
            errors.append(f"reply.{key}: not a list")
    if errors:
        return Validation(False, errors)

    _check_records(
        obj["elements"],
        "elements",
        ELEMENT_KEYS,
        _element_values,
        lambda r: (r["sample_id"], r["element_id"]),
        expected_pairs,
        errors,
    )
    _check_records(obj["frames"], "frames", FRAME_KEYS, _frame_values, lambda r: r["sample_id"], sample_ids, errors)
    if errors:
        return Validation(False, errors)
    return Validation(True, [], obj)


def response_schema(expected_pairs: list[tuple[str, str]], sample_ids: list[str]) -> dict:
    """A JSON Schema of a valid reply for this video, for servers that enforce `response_format`.

    Enumerating the ids lets constrained decoding (vLLM, SGLang) emit only listed pairs;
    counting and pairing rules still rest on `validate`.
    """
    element_ids = sorted({e for _, e in expected_pairs})
    confidence = {"type": "number", "minimum": 0, "maximum": 1}
    element = {
        "type": "object",
        "additionalProperties": False,
        "required": list(ELEMENT_KEYS),
        "properties": {
            "sample_id": {"type": "string", "enum": sorted({s for s, _ in expected_pairs})},
            "element_id": {"type": "string", "enum": element_ids},
            "removal": {"type": "string", "enum": list(REMOVAL)},
            "artifact": {"type": "string", "enum": list(ARTIFACT)},
            "confidence": confidence,
            "note": {"type": "string"},
        },
    }
    frame = {
        "type": "object",
        "additionalProperties": False,
        "required": list(FRAME_KEYS),
        "properties": {
            "sample_id": {"type": "string", "enum": list(sample_ids)},
            "preservation": {"type": "string", "enum": list(PRESERVATION)},
            "confidence": confidence,
            "note": {"type": "string"},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": list(TOP_KEYS),
        "properties": {
            # A video without annotated elements expects an empty list (an empty enum is no schema).
            "elements": (
                {"type": "array", "items": element, "minItems": len(expected_pairs), "maxItems": len(expected_pairs)}
                if expected_pairs
                else {"type": "array", "maxItems": 0}
            ),
            "frames": {"type": "array", "items": frame, "minItems": len(sample_ids), "maxItems": len(sample_ids)},
        },
    }
