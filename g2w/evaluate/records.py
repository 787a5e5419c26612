"""Judgment records (`judgments.jsonl`) and the judge cache.

One record per video, as one JSON line:

    case_id, split, status ("ok" | "invalid" | "error"), reason, message, method_fault,
    judgment (the parsed reply, or null), raw_response (the last reply's text),
    validation {ok, errors}, attempts [{attempt, raw, errors, meta}],
    expected (samples, their timestamps and frame indices, and each sample's elements with
    instance ids and labels: everything metrics need), checks (validation measurements),
    run_config (judge settings, prompt hash and source, evidence hash, canvas, eval fps,
    schema retries, judge_children), evidence_dir, cache_key, cached.

"invalid" is a reply that still failed the schema after the bounded retries: it is final and
scored as failure, never as success. "error" rows carry `method_fault`: true when the edit is
to blame (missing, broken, truncated, wrong geometry), false when the case or the judge is
(those are excluded from scores and lower coverage).

The cache maps sha256(evidence hash, prompt hash, judge settings, extra judge inputs, schema
retries, judge_children) to the judge's final result ("ok" or "invalid"), one small JSON file per video,
written atomically. A rerun finds it and does not call the judge again; results that got no
answer at all (transport failures) are not cached, so a rerun retries them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator

from g2w.io import storage

RESULT_KEYS = ("status", "reason", "message", "judgment", "raw_response", "validation", "attempts")


def cache_key(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class JudgeCache:
    """A folder of finished judge results keyed by `cache_key` (local, or a bucket prefix)."""

    def __init__(self, folder: str):
        self.folder = folder

    def _path(self, key: str) -> str:
        return storage.join(self.folder, key[:2], key + ".json")

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(storage.read_bytes(self._path(key)))
        except (FileNotFoundError, ValueError):
            return None
        except OSError:  # a bucket's "no such key"
            if storage.is_uri(self.folder):
                return None
            raise

    def put(self, key: str, result: dict) -> None:
        # published whole (renamed on a disk, one upload to a bucket), so a reader never sees part
        storage.write_bytes(self._path(key), json.dumps({k: result[k] for k in RESULT_KEYS}).encode())


def write_jsonl(path: str, records: list[dict]) -> None:
    """All records, sorted by case id, written to a temp name and renamed into place."""
    tmp = path + ".partial"
    with open(tmp, "w") as f:
        for rec in sorted(records, key=lambda r: r["case_id"]):
            f.write(json.dumps(rec, sort_keys=True) + "\n")
    os.replace(tmp, path)


def read_records(path: str) -> list[dict]:
    """Records from a judgments.jsonl (or a run folder holding one)."""
    if os.path.isdir(path):
        path = os.path.join(path, "judgments.jsonl")
    return [item for _, item in numbered_jsonl(path)]


def numbered_jsonl(path: str) -> Iterator[tuple[str, object]]:
    """("path:line", parsed value) for every non-blank line; a line that is not JSON raises."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    yield f"{path}:{n}", json.loads(line)
                except ValueError as exc:
                    raise ValueError(f"{path}:{n}: not a JSON record ({exc})") from exc
