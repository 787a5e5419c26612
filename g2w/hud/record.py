"""Reading and writing synthesis records and annotations, and finding the assets a record names.

A record names its assets by id together with the library folder and each PNG's SHA-1, so a
rebuild reads exactly the pixels the sample was rendered from, and refuses (rather than
silently differing) if an image has changed since. `library_root` overrides the recorded folder
when a library has moved.
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
from PIL import Image

from g2w.hud.annotate import annotate_record


class AssetMismatchError(RuntimeError):
    """An asset image differs from the one the record was rendered with."""


def write_json(path: str | os.PathLike, data: dict, indent: int | None = None) -> None:
    """Write JSON under a temporary name and rename it into place."""
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(path) or ".", "." + os.path.basename(path) + ".partial")
    with open(tmp, "w") as f:
        json.dump(data, f, indent=indent, separators=(",", ":") if indent is None else None)
    os.replace(tmp, path)


def read_json(path: str | os.PathLike) -> dict:
    with open(os.fspath(path)) as f:
        return json.load(f)


class RecordImages:
    """Callable asset_id -> RGBA, reading the PNGs a record names (checked by SHA-1)."""

    def __init__(self, record: dict, library_root: str | None = None):
        lib = record["library"]
        self.root = library_root or lib["root"]
        self.entries = lib["assets"]
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, asset_id: str) -> np.ndarray:
        if asset_id not in self._cache:
            entry = self.entries[asset_id]
            path = os.path.join(self.root, entry["path"])
            with open(path, "rb") as f:
                data = f.read()
            if "sha1" in entry and hashlib.sha1(data).hexdigest() != entry["sha1"]:
                raise AssetMismatchError(f"{path} changed since the sample was rendered (SHA-1 differs)")
            with Image.open(path) as img:
                self._cache[asset_id] = np.asarray(img.convert("RGBA"))
        return self._cache[asset_id]


def annotation_from_record_file(record_path: str | os.PathLike, library_root: str | None = None) -> dict:
    record = read_json(record_path)
    return annotate_record(record, RecordImages(record, library_root))
