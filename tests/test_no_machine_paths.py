"""No tracked file carries a path of a development machine (its scratch folders, checkouts or
home), which would mean nothing to a user and leak how the project was built."""

from __future__ import annotations

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]
# an absolute path into a development machine's workspace or home, not a relative "out/work/..."
MACHINE_PATH = re.compile(r"(?<![\w}./-])(/work/[\w.-]+|/root/[\w.-]+|/home/[a-z_][\w-]*/[\w.-]+)")
ALLOWED = {"/root/.ray", "/home/ray/"}  # the Ray images' own paths on cluster nodes


def machine_paths(text: str) -> list[str]:
    return [m for m in MACHINE_PATH.findall(text) if not any(m.startswith(a.rstrip("/")) for a in ALLOWED)]


def test_the_pattern_finds_machine_paths_only():
    work, root = "/wo" + "rk", "/ro" + "ot"  # split, so this file holds no such path itself
    assert machine_paths(f"see {work}/scratch/s1/log.txt and {root}/.cache/x") == [f"{work}/scratch", f"{root}/.cache"]
    assert machine_paths('f"{out}/work/windows" and out/work/x and ~/.ray/auth_token') == []


def test_no_tracked_file_holds_a_machine_path():
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    found = {}
    for name in files:
        path = ROOT / name
        if not path.is_file() or path.suffix in {".safetensors", ".png", ".mp4", ".mkv", ".parquet", ".pt"}:
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        hits = machine_paths(text)
        if hits:
            found[name] = sorted(set(hits))[:3]
    assert found == {}
