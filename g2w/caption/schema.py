"""The caption schema: a strict JSON schema for servers that constrain output, and a validator
that checks what the schema cannot (times within the segment, spans ordered, local static
spans covering the segment) and explains every failure."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

GLOBAL_FIELDS = (
    "environment",
    "architecture",
    "weather",
    "lighting",
    "time_of_day",
    "season",
    "perspective",
    "composition",
)
PERSPECTIVES = ("first_person", "third_person", "other")
AGENTS = ("player", "npc")
LEVELS = ("local_static", "dynamic_events", "agent_actions")
COVER_TOLERANCE_S = 1.0  # local static spans may leave gaps this long at the ends or between spans


def _span(extra: dict) -> dict:
    props = {"start_s": {"type": "number"}, "end_s": {"type": "number"}, "text": {"type": "string"}, **extra}
    return {"type": "object", "additionalProperties": False, "required": list(props), "properties": props}


def response_schema() -> dict:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["global_static", *LEVELS],
        "properties": {
            "global_static": {
                "type": "object",
                "additionalProperties": False,
                "required": list(GLOBAL_FIELDS),
                "properties": {
                    **{f: {"type": "string"} for f in GLOBAL_FIELDS},
                    "perspective": {"type": "string", "enum": list(PERSPECTIVES)},
                },
            },
            "local_static": {"type": "array", "items": _span({})},
            "dynamic_events": {"type": "array", "items": _span({})},
            "agent_actions": {
                "type": "array",
                "items": _span({"agent": {"type": "string", "enum": list(AGENTS)}, "action": {"type": "string"}}),
            },
        },
    }


@dataclass
class Check:
    ok: bool
    errors: list = field(default_factory=list)
    caption: dict | None = None


def _parse(text: str):
    text = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    return json.loads(fenced.group(1) if fenced else text)


def validate_caption(text: str, duration_s: float) -> Check:
    try:
        value = _parse(text)
    except (ValueError, TypeError) as exc:
        return Check(False, [f"not JSON: {exc}"])
    errors = []
    if not isinstance(value, dict):
        return Check(False, ["not a JSON object"])
    extra = set(value) - {"global_static", *LEVELS}
    if extra:
        errors.append(f"unexpected keys {sorted(extra)}")
    g = value.get("global_static")
    if not isinstance(g, dict) or set(g) != set(GLOBAL_FIELDS) or not all(isinstance(g[f], str) for f in g):
        errors.append(f"global_static must hold exactly {list(GLOBAL_FIELDS)} as strings")
    elif g["perspective"] not in PERSPECTIVES:
        errors.append(f"global_static.perspective must be one of {PERSPECTIVES}")
    for level in LEVELS:
        spans = value.get(level)
        if not isinstance(spans, list):
            errors.append(f"{level} must be a list")
            continue
        keys = {"start_s", "end_s", "text"} | ({"agent", "action"} if level == "agent_actions" else set())
        for k, s in enumerate(spans):
            where = f"{level}[{k}]"
            if not isinstance(s, dict) or set(s) != keys:
                errors.append(f"{where} must hold exactly {sorted(keys)}")
                continue
            if not all(isinstance(s[t], (int, float)) and not isinstance(s[t], bool) for t in ("start_s", "end_s")):
                errors.append(f"{where}: start_s and end_s must be numbers")
                continue
            if not 0 <= s["start_s"] < s["end_s"] <= duration_s + 1e-6:
                errors.append(f"{where}: need 0 <= start_s < end_s <= {duration_s:g}")
            if not isinstance(s["text"], str) or not s["text"].strip():
                errors.append(f"{where}: text must be a non-empty string")
            if level == "agent_actions" and s["agent"] not in AGENTS:
                errors.append(f"{where}: agent must be one of {AGENTS}")
        if level == "local_static" and not errors:
            errors += _coverage(spans, duration_s)
    return Check(not errors, errors, value if not errors else None)


def _coverage(spans: list, duration_s: float) -> list:
    if not spans:
        return ["local_static must cover the segment"]
    spans = sorted(spans, key=lambda s: s["start_s"])
    out = []
    if spans[0]["start_s"] > COVER_TOLERANCE_S or spans[-1]["end_s"] < duration_s - COVER_TOLERANCE_S:
        out.append("local_static spans must cover the segment from start to end")
    for a, b in zip(spans, spans[1:]):
        if b["start_s"] < a["end_s"] - 1e-6:
            out.append("local_static spans must not overlap")
            break
        if b["start_s"] - a["end_s"] > COVER_TOLERANCE_S:
            out.append("local_static spans leave a gap")
            break
    return out
