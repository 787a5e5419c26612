"""Write requirements-image.lock: the lines of requirements.lock that the image needs at run time.

The runtime set is the closure of pyproject's [project].dependencies (with their extras) over the
installed distributions' metadata, so packages that only the test and bench extras bring
(pytest, moto, scikit-image, ...) stay out of the image. Run after `make lock`:
    python scripts/image_lock.py            # rewrite requirements-image.lock
    python scripts/image_lock.py --check    # exit 1 if it is out of date
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent


def runtime_closure(requirements: list[str]) -> set[str]:
    """Canonical names of every distribution these requirements pull in, extras included."""
    seen: set[str] = set()
    todo = [(Requirement(r), frozenset(Requirement(r).extras)) for r in requirements]
    done_extras: set[tuple[str, frozenset]] = set()
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if (name, extras) in done_extras:
            continue
        done_extras.add((name, extras))
        seen.add(name)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            continue  # not installed here: a platform-specific dependency, kept by name only
        for line in dist.requires or []:
            dep = Requirement(line)
            wanted = [{"extra": e} for e in extras] or [{"extra": ""}]
            if dep.marker is None or any(dep.marker.evaluate(env) for env in wanted):
                todo.append((dep, frozenset(dep.extras)))
    return seen


def image_lock(lock_text: str, dependencies: list[str]) -> str:
    keep = runtime_closure(dependencies)
    lines = [line for line in lock_text.splitlines() if line.strip() and canonicalize_name(line.split("==")[0]) in keep]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the file is up to date")
    args = parser.parse_args(argv)
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    text = image_lock((ROOT / "requirements.lock").read_text(), deps)
    target = ROOT / "requirements-image.lock"
    if args.check:
        if not target.exists() or target.read_text() != text:
            print("requirements-image.lock is out of date: run python scripts/image_lock.py", file=sys.stderr)
            return 1
        return 0
    target.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
