"""Local paths and object-store URIs (`s3://`, `gs://`, `file://`) behind one small interface.

Inputs may live on a laptop disk or in a bucket; pyarrow's filesystems give both the same
seekable file objects, which PyAV opens directly, so sources are streamed rather than copied.
"""

from __future__ import annotations

import fnmatch
import os
from typing import BinaryIO

import pyarrow.fs as pafs

VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".mov", ".avi", ".flv", ".ts", ".m4v", ".mpg", ".mpeg")


def is_uri(path: str) -> bool:
    return "://" in path


def _fs(path: str) -> tuple[pafs.FileSystem, str]:
    return pafs.FileSystem.from_uri(path)


def exists(path: str) -> bool:
    if not is_uri(path):
        return os.path.isfile(path)
    fs, inner = _fs(path)
    return fs.get_file_info(inner).type == pafs.FileType.File


def is_dir(path: str) -> bool:
    if not is_uri(path):
        return os.path.isdir(path)
    fs, inner = _fs(path)
    return fs.get_file_info(inner).type == pafs.FileType.Directory


def size(path: str) -> int:
    if not is_uri(path):
        return os.path.getsize(path)
    fs, inner = _fs(path)
    return fs.get_file_info(inner).size


def open_binary(path: str) -> BinaryIO:
    """A seekable binary file object for a local path or a URI (close it when done)."""
    if not is_uri(path):
        return open(path, "rb")
    fs, inner = _fs(path)
    return fs.open_input_file(inner)


def read_range(path: str, offset: int, length: int) -> bytes:
    with open_binary(path) as f:
        f.seek(offset)
        return f.read(length)


def _list_dir(path: str) -> list[str]:
    """Video files below a directory, recursively, as paths of the same kind as `path`."""
    if not is_uri(path):
        found = []
        for root, _, files in os.walk(path):
            found += [os.path.join(root, f) for f in files if f.lower().endswith(VIDEO_EXTENSIONS)]
        return found
    fs, inner = _fs(path)
    scheme = path.split("://", 1)[0]
    infos = fs.get_file_info(pafs.FileSelector(inner, recursive=True))
    return [f"{scheme}://{i.path}" for i in infos
            if i.type == pafs.FileType.File and i.path.lower().endswith(VIDEO_EXTENSIONS)]


def _glob(pattern: str) -> list[str]:
    if not is_uri(pattern):
        import glob

        return [p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p)]
    # object stores have no glob: list the fixed prefix, then match the rest
    head = pattern.split("*", 1)[0].rsplit("/", 1)[0]
    return [p for p in _list_dir(head) if fnmatch.fnmatch(p, pattern)]


def _read_list(path: str) -> list[str]:
    """Paths listed in a .txt (one per line, # comments) or .parquet (a `path` column)."""
    if path.endswith(".parquet"):
        import pyarrow.parquet as pq

        with open_binary(path) as f:
            table = pq.read_table(f)
        column = "path" if "path" in table.column_names else table.column_names[0]
        return [str(p) for p in table.column(column).to_pylist() if p]
    with open_binary(path) as f:
        lines = f.read().decode().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]


def expand_inputs(specs: list[str]) -> list[str]:
    """Turn files, directories, globs and .txt/.parquet lists into a sorted, de-duplicated
    list of video paths. A named file is kept even if it does not exist or is not a video, so
    that the job reports it instead of silently dropping it."""
    found: list[str] = []
    for spec in specs:
        if any(ch in spec for ch in "*?["):
            found += _glob(spec)
        elif spec.endswith((".txt", ".parquet")) and exists(spec):
            found += expand_inputs(_read_list(spec))
        elif is_dir(spec):
            found += _list_dir(spec)
        else:
            found.append(spec)
    return sorted(set(found))
