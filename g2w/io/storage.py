"""Local paths and object-store URIs (`s3://`, `gs://`, `file://`) behind one small interface.

Inputs may live on a laptop disk or in a bucket; pyarrow's filesystems give both the same
seekable file objects, which PyAV opens directly, so sources are streamed rather than copied.
Outputs are written the same way (the second half of this file). An S3 endpoint other than
AWS (MinIO, a test server) and credentials come from the usual AWS environment variables
(`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, ...), which pyarrow reads.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO, cast

import pyarrow.fs as pafs

from g2w.io.block_reader import BlockReader

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
    """A seekable binary file object for a local path or a URI (close it when done). A URI is
    read in large blocks (`block_reader`), so a demuxer's small reads do not each cost a request."""
    if not is_uri(path):
        return open(path, "rb")
    fs, inner = _fs(path)
    raw = fs.open_input_file(inner)
    return cast(BinaryIO, BlockReader(cast(BinaryIO, raw), raw.size()))


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
    return [
        f"{scheme}://{i.path}"
        for i in infos
        if i.type == pafs.FileType.File and i.path.lower().endswith(VIDEO_EXTENSIONS)
    ]


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


# --- writing ---------------------------------------------------------------------------------
# Outputs go to a local folder or a bucket prefix through the same few calls. An object store
# has no rename, but an object appears only when its upload completes, so "write to a temporary
# file, then publish" gives every output the same guarantee on both: a reader (or a rerun that
# skips finished items) sees a whole file or none. Workers call these themselves, so no output
# passes through the driver's disk.


def absolute(path: str) -> str:
    """A local path made absolute (workers may run elsewhere); URIs unchanged."""
    return path.rstrip("/") if is_uri(path) else os.path.abspath(path)


def join(base: str, *parts: str) -> str:
    """`base/part/...` for a local path or a URI (always `/`-separated)."""
    return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)]) if is_uri(base) else os.path.join(base, *parts)


def makedirs(path: str) -> None:
    """Create a local folder; on an object store prefixes need no creating (a no-op there)."""
    if not is_uri(path):
        os.makedirs(path, exist_ok=True)


def _hidden_partial(path: str) -> str:
    """A hidden temporary name beside `path` that keeps its extension (encoders read it)."""
    head, tail = os.path.split(path)
    stem, ext = os.path.splitext(tail)
    return os.path.join(head, f".{stem}.partial-{os.getpid()}{ext}")


def publish_file(local_path: str, dest: str) -> None:
    """Move a finished local file to `dest` (rename on a local disk, upload to a store)."""
    if not is_uri(dest):
        os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
        os.replace(local_path, dest)
        return
    fs, inner = _fs(dest)
    with open(local_path, "rb") as src, fs.open_output_stream(inner) as out:
        shutil.copyfileobj(src, out, 8 << 20)
    os.remove(local_path)


@contextlib.contextmanager
def staged_file(dest: str) -> Iterator[str]:
    """Yields a local path to write `dest` to; on success it is published, on error dropped.

    Local: a hidden file beside `dest`, renamed over it. Object store: a temporary file on this
    machine (the worker that made it), uploaded as one object.
    """
    if is_uri(dest):
        fd, tmp = tempfile.mkstemp(prefix="g2w-", suffix=os.path.splitext(dest)[1])
        os.close(fd)
    else:
        os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
        tmp = _hidden_partial(dest)
    try:
        yield tmp
        publish_file(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_bytes(path: str, data: bytes) -> None:
    with staged_file(path) as tmp, open(tmp, "wb") as f:
        f.write(data)


def write_json(path: str, value) -> None:
    write_bytes(path, json.dumps(value, indent=2).encode())


def read_bytes(path: str) -> bytes:
    with open_binary(path) as f:
        return f.read()


def upload_tree(local_dir: str, dest: str, last: tuple[str, ...] = ()) -> None:
    """Copy every file below a local folder to `dest`, keeping relative paths. Files named in
    `last` (relative paths) go after all others: a completion marker a rerun checks for."""
    files = [os.path.relpath(os.path.join(root, n), local_dir) for root, _, names in os.walk(local_dir) for n in names]
    for rel in sorted(files, key=lambda r: (r in last, r)):
        with staged_file(join(dest, *rel.split(os.sep))) as tmp:
            shutil.copyfile(os.path.join(local_dir, rel), tmp)


@contextlib.contextmanager
def staged_dir(dest: str) -> Iterator[str]:
    """A local folder to write several files (a report and its PNGs) into, then `dest` holds
    them: a local `dest` is used directly; for a URI a temporary folder is uploaded on success."""
    if not is_uri(dest):
        os.makedirs(dest, exist_ok=True)
        yield dest
        return
    with tempfile.TemporaryDirectory(prefix="g2w-stage-") as local:
        yield local
        upload_tree(local, dest)


@contextlib.contextmanager
def local_copy(path: str) -> Iterator[str]:
    """A local file with the content of `path`: the path itself, or a temporary download of a
    URI (for readers such as decord that open local files only; meant for short clips)."""
    if not is_uri(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="g2w-copy-") as folder:
        local = os.path.join(folder, "copy" + os.path.splitext(path)[1])
        with open_binary(path) as src, open(local, "wb") as out:
            shutil.copyfileobj(src, out, 8 << 20)
        yield local


def list_files(folder: str, suffix: str = "") -> list[str]:
    """Files directly inside `folder` whose names end with `suffix`, as full paths of the same
    kind, sorted; hidden (temporary) names are left out. A missing folder lists as empty."""
    if not is_uri(folder):
        names = os.listdir(folder) if os.path.isdir(folder) else []
        return sorted(
            os.path.join(folder, n)
            for n in names
            if n.endswith(suffix) and not n.startswith(".") and os.path.isfile(os.path.join(folder, n))
        )
    fs, inner = _fs(folder)
    scheme = folder.split("://", 1)[0]
    infos = fs.get_file_info(pafs.FileSelector(inner, allow_not_found=True))
    return sorted(
        f"{scheme}://{i.path}"
        for i in infos
        if i.type == pafs.FileType.File and i.base_name.endswith(suffix) and not i.base_name.startswith(".")
    )


def remove(path: str) -> None:
    """Delete one file (missing is fine: removal is the goal)."""
    if not is_uri(path):
        if os.path.exists(path):
            os.remove(path)
        return
    fs, inner = _fs(path)
    if fs.get_file_info(inner).type == pafs.FileType.File:
        fs.delete_file(inner)


DELETE_CONCURRENCY = 32  # object deletes in flight at once


def remove_many(paths: Iterable[str], concurrency: int = DELETE_CONCURRENCY) -> int:
    """Delete many files (missing ones are fine); returns how many were asked for.

    Object stores are where this matters: one delete is one round trip, so thousands of stale
    clips deleted one after another cost minutes of latency, and resolving a filesystem per path
    (as `remove` does) builds a new client each time. Here the paths are grouped by bucket, one
    filesystem serves each group, and deletes run `concurrency` at a time in threads (pyarrow
    releases the GIL). A bulk DeleteObjects call would need an S3 client of its own beside
    pyarrow's, whose credential chain (instance profile, IRSA web identity) the cluster relies on.
    """
    paths = list(paths)
    groups: dict[str, list[str]] = {}
    for path in paths:
        if not is_uri(path):
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
            continue
        scheme, rest = path.split("://", 1)
        groups.setdefault(f"{scheme}://{rest.split('/', 1)[0]}", []).append(path)
    for root, members in groups.items():
        fs, _ = _fs(root)
        inner = [_fs_path(p) for p in members]

        def delete(target: str, fs: pafs.FileSystem = fs) -> None:
            with contextlib.suppress(FileNotFoundError):
                fs.delete_file(target)

        with ThreadPoolExecutor(max(1, min(concurrency, len(inner)))) as pool:
            list(pool.map(delete, inner))
    return len(paths)


def _fs_path(uri: str) -> str:
    """The filesystem-internal path of a URI (bucket/key), as `FileSystem.from_uri` gives it."""
    return uri.split("://", 1)[1]
