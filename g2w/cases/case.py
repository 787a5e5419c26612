"""Benchmark cases (Table 15): what links an edited result to its source and ground truth.

A case has a stable `case_id` (an edit is found as `<case_id>.mp4`), a `split` (synthetic or
wild), the UI-containing source video, an optional clean reference (synthetic only; the MLLM
judge never sees it), the annotation, an optional pixel mask (synthetic), and the video
metadata. Cases load from either

- a synthesis output folder: `OUT/manifest.parquet`, one case per `status == "ok"` sample,
  files under `OUT/samples/<sample_id>/` (`hud.mp4` is the source, `clean.mp4` the reference,
  `mask.mkv` the mask); or
- a JSONL file, one case per line: `{"case_id", "video", "annotation"}` plus optional `"split"`
  (default "wild"), `"reference"`, `"mask"` and the video's `"width"`, `"height"`, `"fps"`,
  `"frame_count"`; relative paths are relative to the file.

Listed metadata is checked against the video when the case is prepared (a mismatch means the
listing points at the wrong file).

Loading only reads the listing; videos and annotations are opened later by the worker that
uses them, so one broken case becomes one error row. A folder, a listing and the files they
name may be object-store URIs (`s3://...`): the worker that uses a case fetches its files to a
local temporary folder itself (`local_case`), so no step needs to see another machine's disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace

import pyarrow.parquet as pq

from g2w.io import storage

SPLITS = ("synthetic", "wild")
_CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class CasesError(ValueError):
    """The case listing itself is unusable (not one bad case: the whole input)."""


@dataclass(frozen=True)
class Case:
    case_id: str
    split: str
    source: str
    annotation: str
    reference: str | None = None
    mask: str | None = None
    width: int = 0
    height: int = 0
    fps: float = 0.0
    frame_count: int = 0
    annotation_format: str = "g2w-annotation-v1"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Case:
        return cls(**json.loads(text))

    def edited_path(self, edited_dir: str) -> str:
        return storage.join(edited_dir, f"{self.case_id}.mp4")


def _check_id(case_id, where: str) -> str:
    # Case ids become file names (edits, evidence folders), so they must be plain names.
    if not isinstance(case_id, str) or not _CASE_ID.match(case_id):
        raise CasesError(f"{where}: case_id {case_id!r} must be a plain file name ([A-Za-z0-9._-])")
    return case_id


def _from_synthesis(folder: str) -> list[Case]:
    with storage.open_binary(storage.join(folder, "manifest.parquet")) as f:
        table = pq.read_table(f)
    cases = []
    for row in table.to_pylist():
        if row.get("status") != "ok":
            continue
        sid = _check_id(row.get("sample_id"), "manifest.parquet")
        sample = storage.join(folder, "samples", sid)
        cases.append(
            Case(
                case_id=sid,
                split="synthetic",
                source=storage.join(sample, "hud.mp4"),
                annotation=storage.join(sample, "annotation.json"),
                reference=storage.join(sample, "clean.mp4"),
                mask=storage.join(sample, "mask.mkv"),
                width=int(row.get("width") or 0),
                height=int(row.get("height") or 0),
                fps=float(row.get("fps") or 0.0),
                frame_count=int(row.get("frame_count") or 0),
            )
        )
    return cases


def _from_jsonl(path: str) -> list[Case]:
    base = path.rsplit("/", 1)[0] if storage.is_uri(path) else os.path.dirname(os.path.abspath(path))

    def resolve(p):
        if p in (None, "") or storage.is_uri(p):
            return p or None
        return storage.join(base, p) if storage.is_uri(base) else os.path.normpath(os.path.join(base, p))

    cases = []
    for n, line in enumerate(storage.read_bytes(path).decode().splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            item = json.loads(line)
        except ValueError as exc:
            raise CasesError(f"{where}: not JSON ({exc})") from exc
        if not isinstance(item, dict) or not item.get("video") or not item.get("annotation"):
            raise CasesError(f"{where}: a case needs case_id, video and annotation")
        split = item.get("split", "wild")
        if split not in SPLITS:
            raise CasesError(f"{where}: split {split!r} not in {SPLITS}")
        if split == "wild" and item.get("reference"):
            raise CasesError(f"{where}: wild cases have no clean reference")
        cases.append(
            Case(
                case_id=_check_id(item.get("case_id"), where),
                split=split,
                source=resolve(item["video"]),
                annotation=resolve(item["annotation"]),
                reference=resolve(item.get("reference")),
                mask=resolve(item.get("mask")),
                width=int(item.get("width", 0)),
                height=int(item.get("height", 0)),
                fps=float(item.get("fps", 0.0)),
                frame_count=int(item.get("frame_count", 0)),
            )
        )
    return cases


def jsonl_item(case: Case) -> dict:
    """A case as one line of the JSONL listing that `load_cases` reads (paths kept as they are)."""
    return {
        "case_id": case.case_id,
        "split": case.split,
        "video": case.source,
        "annotation": case.annotation,
        "reference": case.reference,
        "mask": case.mask,
        "width": case.width,
        "height": case.height,
        "fps": case.fps,
        "frame_count": case.frame_count,
    }


def load_cases(path: str | os.PathLike) -> list[Case]:
    """Cases from a synthesis output folder or a JSONL listing, in a stable order."""
    path = storage.absolute(os.fspath(path))
    if storage.is_dir(path):
        if not storage.exists(storage.join(path, "manifest.parquet")):
            raise CasesError(f"{path}: a cases folder must hold manifest.parquet (a synthesis output)")
        cases = _from_synthesis(path)
    elif storage.exists(path):
        cases = _from_jsonl(path)
    else:
        raise CasesError(f"{path}: no such cases folder or JSONL file")
    dupes = sorted(i for i, n in Counter(c.case_id for c in cases).items() if n > 1)
    if dupes:
        raise CasesError(f"{path}: duplicate case ids {dupes[:5]}")
    return sorted(cases, key=lambda c: c.case_id)


@contextlib.contextmanager
def local_case(case: Case, *paths: str | None) -> Iterator[tuple[Case, list[str | None]]]:
    """The case (and any further `paths`, such as its edit) with every file on this machine.

    Local paths pass through unchanged. Each URI that exists is downloaded into one temporary
    folder, removed on exit; a URI that does not exist maps to a local path that does not
    exist either, so "missing file" checks behave as they would on a disk. Yields the case
    with local paths, and the local versions of `paths`."""
    uris = [p for p in (case.source, case.annotation, case.reference, case.mask, *paths) if p and storage.is_uri(p)]
    if not uris:
        yield case, list(paths)
        return
    with tempfile.TemporaryDirectory(prefix="g2w-case-") as folder:
        local = {}
        for k, uri in enumerate(dict.fromkeys(uris)):
            target = os.path.join(folder, f"{k}-{uri.rsplit('/', 1)[-1]}")
            if storage.exists(uri):
                with storage.open_binary(uri) as src, open(target, "wb") as out:
                    while chunk := src.read(8 << 20):
                        out.write(chunk)
            local[uri] = target

        def here(p):
            return local.get(p, p) if p else p

        yield (
            replace(
                case,
                source=here(case.source),
                annotation=here(case.annotation),
                reference=here(case.reference),
                mask=here(case.mask),
            ),
            [here(p) for p in paths],
        )
