"""Checking what a request asks for before anything is queued (no Ray, no FastAPI).

- `resolve_uri`: a `uri` must name a file inside one of the configured roots (local folders or
  `s3://` prefixes); symlinks and `..` cannot step outside.
- `method_options`: options are checked against the method's own signature in the removal
  registry (names and types of its keyword arguments), so each method validates its own options
  and new methods need nothing here.
- `check_method`: a method that needs a ground-truth mask cannot run on an uploaded clip, and a
  GPU method needs GPU replicas.
Each failure is an `InputError` carrying the HTTP status the API answers with.
"""

from __future__ import annotations

import inspect
import json
import os
import posixpath
import re
from collections.abc import Callable
from typing import Any

from g2w.remove import METHODS, PROGRESS

JOB_ID = re.compile(r"^(job|batch)_[0-9a-f]{20}$")


class InputError(ValueError):
    """A refused request: the HTTP status, a stable reason code, a message and extra headers."""

    def __init__(self, status: int, reason: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.reason, self.headers = status, reason, headers


def resolve_uri(uri: str, roots: tuple[str, ...]) -> str:
    """The canonical path or URI for `uri` if it lies inside an allowed root, else InputError(403)."""
    uri = (uri or "").strip()
    if not uri:
        raise InputError(422, "bad_uri", "empty uri")
    if uri.startswith("s3://"):
        path = posixpath.normpath(uri[len("s3://") :])
        if path.startswith(("..", "/")) or "/../" in f"/{path}/":
            raise InputError(403, "uri_not_allowed", f"{uri}: not a plain object key")
        for root in roots:
            if root.startswith("s3://") and (path + "/").startswith(root[len("s3://") :].rstrip("/") + "/"):
                return "s3://" + path
        raise InputError(403, "uri_not_allowed", f"{uri}: outside the allowed roots")
    if "://" in uri and not uri.startswith("file://"):
        raise InputError(422, "bad_uri", f"{uri}: only local paths, file:// and s3:// are supported")
    path = os.path.realpath(uri[len("file://") :] if uri.startswith("file://") else uri)
    for root in roots:
        if "://" in root:
            continue
        real_root = os.path.realpath(root)
        if os.path.commonpath([path, real_root]) == real_root:
            return path
    raise InputError(403, "uri_not_allowed", f"{uri}: outside the allowed roots")


def _signature_options(name: str) -> dict[str, inspect.Parameter]:
    params = list(inspect.signature(METHODS[name].function()).parameters.values())[2:]  # after (case, out_path)
    return {p.name: p for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name != PROGRESS}


def describe_methods(gpu_available: bool) -> list[dict]:
    """The registry as the page and clients see it: traits and each option's default."""
    out = []
    for name, m in sorted(METHODS.items()):
        options = {
            k: p.default for k, p in _signature_options(name).items() if p.default is not inspect.Parameter.empty
        }
        out.append(
            {
                "name": name,
                "mask": m.mask,
                "ref_pt": m.ref_pt,
                "gpu": m.gpu,
                "available": (not m.mask) and (gpu_available or not m.gpu),
                "options": {k: v for k, v in options.items() if isinstance(v, (int, float, str, bool, type(None)))},
            }
        )
    return out


# The range of every option a client may set, by name (the test suite checks that each option of
# each registry method has one, so a new option is refused until it is given a range here).
# `server` options name server-side paths: a client never sets them (checkpoints go by name).
X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")


def _mask_rules(value) -> None:
    """A `mask_rules` spec must parse (g2w.segment.mask_rules), with at most a few rules."""
    from g2w.segment.mask_rules import parse_rules

    if not isinstance(value, str) or len(value) > 200:
        raise ValueError("a comma-separated spec of at most 200 characters")
    parse_rules(value)


def _attention(value) -> None:
    """An attention backend GPU replicas can run here (gamecleaner runs on them alone)."""
    from g2w.models.gamecleaner.speed import check_attention

    if not isinstance(value, str):
        raise ValueError("a backend name")
    check_attention(value, "cuda")


# A rule: a closed (low, high) range, a tuple of allowed strings, "server" or "registry", or a check.
Rule = tuple[float, float] | tuple[str, ...] | str | Callable[[Any], None]
OPTION_RULES: dict[str, Rule] = {
    "radius": (1, 32),
    "dilate_px": (0, 64),
    "chunk_frames": (1, 1000),
    "crf": (0, 51),
    "steps": (1, 200),
    "sampler": ("euler", "unipc", "dpm++"),
    "seed": (0, 2**31 - 1),
    "preset": X264_PRESETS,
    "mask": ("segmenter",),
    "reference": ("none", "self"),
    "reference_image": "server",
    "reference_edits": "server",  # a folder on the worker's disk: a request never names server paths
    "checkpoint": "registry",
    "base_dir": "server",
    "mllm_dir": "server",
    "alpha_ceiling": (0.0, 1.0),
    "mask_rules": _mask_rules,
    "attention": _attention,
    "compile": "server",  # a per-checkpoint setting of the service (its compile cost is paid once per replica)
}


def _in_range(name: str, value, checkpoints: dict):
    rule = OPTION_RULES.get(name, "server")
    if rule == "server":
        raise InputError(422, "bad_options", f"option {name}: set by the server, not by a request")
    if callable(rule):
        try:
            rule(value)
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(422, "bad_options", f"option {name}: {exc}") from exc
    elif rule == "registry":
        if not isinstance(value, str) or value not in checkpoints:
            raise InputError(422, "bad_options", f"option {name}: name one of the checkpoints {sorted(checkpoints)}")
    elif isinstance(rule, tuple) and isinstance(rule[0], str):
        if value not in rule:
            raise InputError(422, "bad_options", f"option {name}: one of {list(rule)}")
    elif not rule[0] <= value <= rule[1]:
        raise InputError(422, "bad_options", f"option {name}: {value!r} is outside [{rule[0]}, {rule[1]}]")
    return value


def _coerce(name: str, value, default):
    if default is inspect.Parameter.empty or default is None:
        return value
    kind = type(default)
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise InputError(422, "bad_options", f"option {name}: expected true or false, got {value!r}")
    if kind in (int, float) and isinstance(value, bool):
        raise InputError(422, "bad_options", f"option {name}: expected a number, got {value!r}")
    if kind is float and isinstance(value, int):
        return float(value)
    if not isinstance(value, kind):
        raise InputError(422, "bad_options", f"option {name}: expected {kind.__name__}, got {value!r}")
    return value


def check_method(name: str, has_ground_truth: bool, gpu_available: bool) -> None:
    if name not in METHODS:
        raise InputError(422, "unknown_method", f"unknown method {name!r}: use one of {sorted(METHODS)}")
    method = METHODS[name]
    if method.mask and not has_ground_truth:
        raise InputError(422, "method_needs_mask", f"{name} needs a ground-truth mask, which a clip alone lacks")
    if method.gpu and not gpu_available:
        raise InputError(422, "method_needs_gpu", f"{name} runs on GPU replicas; this service has none")


def method_options(name: str, raw: str | dict | None, checkpoints: dict | None = None) -> dict:
    """Options (a JSON object) checked against method `name`'s keyword arguments and their ranges;
    a required `checkpoint` must be named."""
    checkpoints = checkpoints or {}
    raw = {} if raw in (None, "") else raw
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise InputError(422, "bad_options", f"options: not JSON ({exc})") from exc
    if not isinstance(raw, dict):
        raise InputError(422, "bad_options", "options must be a JSON object")
    allowed = _signature_options(name)
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        raise InputError(422, "bad_options", f"{name} has no options {unknown}; it takes {sorted(allowed)}")
    missing = sorted(k for k, p in allowed.items() if p.default is inspect.Parameter.empty and k not in raw)
    if missing:
        raise InputError(422, "bad_options", f"{name} needs the options {missing}")
    return {k: _in_range(k, _coerce(k, v, allowed[k].default), checkpoints) for k, v in raw.items()}


def server_options(options: dict, checkpoints: dict) -> dict:
    """What the worker runs with: a named checkpoint replaced by its registered paths."""
    if "checkpoint" not in options:
        return dict(options)
    return {**options, **checkpoints[options["checkpoint"]]}


def upload_suffix(filename: str | None) -> str:
    """A safe extension for a stored upload (the client's file name is never used as a path)."""
    ext = os.path.splitext(os.path.basename(filename or ""))[1].lower()
    return ext if re.fullmatch(r"\.[a-z0-9]{1,5}", ext) else ".bin"
