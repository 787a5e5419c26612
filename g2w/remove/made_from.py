"""What each edit of a remove job was made from, so that a later step may reuse it safely.

Beside `OUT/<case_id>.mp4` the remove job writes `OUT/made/<case_id>.json`: the method, its
options and the SHA-1 of the source file the edit was made from. The record is written before
the edit is published, so a published edit's record is its own or, where an edit was kept from
an earlier run (a resumed job skips it), the record of that run. A step that needs the same
removal of the same source (GameCleaner's `self` reference) takes an edit only when all three
match: a source rewritten since, another method, other options, or an edit without a record
is made afresh instead.
"""

from __future__ import annotations

import hashlib
import json

from g2w.io import storage


def source_digest(path: str) -> str:
    """SHA-1 of a file's bytes (read in chunks, so a long video is never held whole)."""
    digest = hashlib.sha1()
    with storage.open_binary(path) as f:
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def record_path(out_dir: str, case_id: str) -> str:
    return storage.join(out_dir, "made", f"{case_id}.json")


def made_record(method: str, options: dict, source_sha1: str) -> dict:
    # through JSON, so that what is compared is what a record read back holds
    return json.loads(json.dumps({"method": method, "options": options, "source_sha1": source_sha1}))


def write_record(out_dir: str, case_id: str, record: dict) -> None:
    storage.write_json(record_path(out_dir, case_id), record)


def reusable_edit(out_dir: str, case_id: str, source: str, method: str, options: dict) -> str | None:
    """The path of `out_dir`'s edit of this case if it was made by `method` with exactly
    `options` from a source with the bytes of `source`; None otherwise."""
    edit, record = storage.join(out_dir, f"{case_id}.mp4"), record_path(out_dir, case_id)
    if not (storage.exists(edit) and storage.exists(record)):
        return None
    try:
        made = json.loads(storage.read_bytes(record))
    except (OSError, ValueError):
        return None
    return edit if made == made_record(method, options, source_digest(source)) else None
