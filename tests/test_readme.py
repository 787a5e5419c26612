"""The README as a new user reads it: short, every link it gives leads somewhere, and every `g2w`
command it shows is one the command line accepts as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from g2w.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_every_relative_link_exists():
    targets = re.findall(r"\]\(([^)#\s]+)[^)]*\)", README)
    local = [t for t in targets if "://" not in t]
    assert local, "the README links its pages"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing


def _g2w_commands() -> list[list[str]]:
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            words = shlex.split(line) if line else []
            if "ray_jobs." in line:  # `ray job submit ... -- python -m ray_jobs.JOB ARGS`: the g2w command JOB runs
                words = words[words.index("-m") + 1 :]
                module = (ROOT / "ray_jobs" / (words[0].split(".", 1)[1] + ".py")).read_text()
                commands.append([re.search(r'main\(\["([\w-]+)"', module).group(1), *words[1:]])
            elif words and words[0].endswith("g2w"):
                commands.append(words[1:])
    return commands


@pytest.mark.parametrize("argv", _g2w_commands(), ids=lambda a: " ".join(a[:2]))
def test_readme_commands_parse(argv):
    args = build_parser().parse_args(argv)  # argparse exits (SystemExit) on a flag the command lacks
    assert callable(args.run)
