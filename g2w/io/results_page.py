"""Measured results as Markdown pages under `docs/results/`, written by the script that measures.

Every page opens with the same header (the command that produced it, the commit, the machine and
the date), so a figure is never separated from how it was obtained, and rerunning the command is
the only way a page changes. `make results` reruns what can run on the machine at hand.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import subprocess
import sys
from collections.abc import Sequence


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        ).stdout.strip()
        return out.stdout.strip() + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> str:
    """A short description of this machine: cores, memory, accelerator if torch sees one."""
    cores = os.cpu_count() or 0
    try:
        mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError, AttributeError):
        mem_gib = 0.0
    gpu = "no GPU"
    if "torch" in sys.modules:
        torch = sys.modules["torch"]
        if torch.cuda.is_available():
            gpu = torch.cuda.get_device_name(0)
    return f"{platform.machine()}, {cores} cores, {mem_gib:.0f} GiB, {gpu}"


def _load() -> str:
    """The machine's load when the page is written: a timing taken beside other work reads slow."""
    try:
        return f"load average {os.getloadavg()[1]:.1f} over the last 5 minutes"
    except OSError:
        return "load average unknown"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    def cell(v: object) -> str:
        if isinstance(v, float):
            return f"{v:.3g}" if abs(v) < 1000 else f"{v:,.0f}"
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_results_page(path: str | os.PathLike, title: str, command: str, body: str, notes: Sequence[str] = ()) -> str:
    """Write `body` (Markdown) under a header naming `command`, the commit, the machine and now."""
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    head = [
        f"# {title}",
        "",
        f"Written by `{command}` at commit `{_commit()}` on {machine()}, {now}, {_load()}.",
        "Do not edit by hand: rerun the command.",
        "",
    ]
    text = "\n".join(head + [body.rstrip(), ""] + ([*(f"- {n}" for n in notes), ""] if notes else []))
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.partial"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return str(path)
