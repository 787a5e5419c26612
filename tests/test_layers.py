"""The package layers of `g2w/` point one way, read from the source (every import, lazy ones too).

A package may import only packages of a lower layer; packages of one middle layer are siblings that
never import each other; `import ray` appears only in `g2w.runtime`; nothing in `g2w/` imports the
apps above it (`serve`, `ray_jobs`). The layers are listed in `docs/architecture.md`.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Top to bottom. A unit is a top-level module or package of g2w.
LAYERS: list[list[str]] = [
    ["cli", "jobs", "serve_client"],
    ["runtime"],
    ["caption"],
    ["remove", "evaluate"],
    ["curate", "hud", "capture", "trajectory"],
    ["segment", "train"],
    ["models"],
    ["sample_data"],
    ["video"],
    ["step", "train_task", "cases", "io", "types", "taxonomy", "fonts", "weights", "rotations", "option_flags"],
]
# Within these layers units may import each other: the entry points, and the shared contracts.
OPEN_LAYERS = {0, len(LAYERS) - 1}
RAY_UNITS = {"runtime"}
APPS = ("serve", "ray_jobs")


def _layer_of() -> dict[str, int]:
    return {unit: i for i, units in enumerate(LAYERS) for unit in units}


def module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: pathlib.Path, root: pathlib.Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in `path`, relative ones resolved."""
    mod = module_name(path, root).split(".")
    package = mod if path.name == "__init__.py" else mod[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # `from g2w import storage` names a unit in its import list
            if name == "g2w":
                found += [(node.lineno, f"g2w.{a.name}") for a in node.names]
    return found


def violations(root: pathlib.Path) -> list[str]:
    """Every import of `root/g2w` that breaks the layers, as 'file:line: reason'."""
    layer_of = _layer_of()
    bad = []
    for path in sorted((root / "g2w").rglob("*.py")):
        own = module_name(path, root).split(".")
        if len(own) < 2:
            continue
        unit = own[1]
        if unit not in layer_of:
            bad.append(f"{path.relative_to(root)}: unit g2w.{unit} is in no layer")
            continue
        for line, name in imported_modules(path, root):
            where = f"{path.relative_to(root)}:{line}"
            top = name.split(".")[0]
            if top == "ray" and unit not in RAY_UNITS:
                bad.append(f"{where}: imports ray outside g2w.runtime")
            if top in APPS:
                bad.append(f"{where}: imports the app {top}")
            if top != "g2w" or name == "g2w":
                continue
            target = name.split(".")[1]
            if target == unit or target not in layer_of:
                continue
            mine, theirs = layer_of[unit], layer_of[target]
            if theirs < mine:
                bad.append(f"{where}: g2w.{unit} imports g2w.{target}, a layer above it")
            elif theirs == mine and mine not in OPEN_LAYERS:
                bad.append(f"{where}: g2w.{unit} imports its sibling g2w.{target}")
    return bad


def test_imports_point_down():
    assert violations(ROOT) == []


def test_every_unit_has_a_layer():
    units = {
        p.stem if p.is_file() else p.name
        for p in (ROOT / "g2w").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert units <= set(_layer_of()), sorted(units - set(_layer_of()))


@pytest.mark.parametrize(
    "unit, line",
    [
        ("video/probe.py", "from g2w.remove.baselines import telea\n"),  # upward
        ("remove/baselines.py", "from g2w.evaluate import metrics\n"),  # sibling
        ("train/loop.py", "    from g2w.runtime import train\n"),  # lazy, upward
        ("curate/quality.py", "import ray\n"),  # ray outside runtime
        ("hud/render.py", "from serve import api\n"),  # an app
    ],
)
def test_an_injected_import_fails(tmp_path, unit, line):
    copy = tmp_path / "g2w"
    for path in (ROOT / "g2w").rglob("*.py"):
        target = copy / path.relative_to(ROOT / "g2w")
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text()
        if path.relative_to(ROOT / "g2w").as_posix() == unit:
            text += ("\n\ndef _injected():\n" + line) if line.startswith("    ") else "\n" + line
        target.write_text(text)
    found = violations(tmp_path)
    assert len(found) == 1 and found[0].startswith(f"g2w/{unit}:"), found


def test_the_architecture_page_names_every_unit():
    page = (ROOT / "docs" / "architecture.md").read_text()
    missing = [u for units in LAYERS for u in units if f"`{u}/`" not in page and f"`{u}.py`" not in page]
    assert missing == []
