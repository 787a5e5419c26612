"""Evaluation fixtures (loaded by tests/conftest.py): a tiny synthesis output folder, baseline
edits of it, and wild cases over the same videos."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from g2w.cases.case import load_cases
from g2w.remove import run_method
from tests.evaluate.synthetic_cases import write_synthesis_out


@pytest.fixture(scope="session")
def synth_out(tmp_path_factory) -> str:
    """Two 320x180, 30 fps, 3 s samples (corridor, top-down) plus one error row."""
    return write_synthesis_out(str(tmp_path_factory.mktemp("synthesis_out")), count=2)


@pytest.fixture(scope="session")
def edits(synth_out, tmp_path_factory) -> dict[str, str]:
    """Edited folders for identity, telea-gt and the clean reference used as the edit."""
    root = tmp_path_factory.mktemp("edits")
    out = {}
    for method in ("identity", "telea-gt", "reference"):
        folder = os.path.join(root, method)
        os.makedirs(folder)
        for case in load_cases(synth_out):
            if method == "reference":
                shutil.copyfile(case.reference, case.edited_path(folder))
            else:
                run_method(method, case, case.edited_path(folder))
        out[method] = folder
    return out


@pytest.fixture(scope="session")
def wild_cases(synth_out, tmp_path_factory) -> str:
    """A wild-cases JSONL over the synthetic sources, with sparse annotations (every 15th
    frame, as a person annotating on the 2 FPS grid would) and no reference."""
    root = tmp_path_factory.mktemp("wild")
    lines = []
    for case in load_cases(synth_out):
        with open(case.annotation) as f:
            ann = json.load(f)
        ann["frames"] = [fr for fr in ann["frames"] if fr["frame"] % 15 == 0]
        ann_path = root / f"{case.case_id}.json"
        ann_path.write_text(json.dumps(ann))
        rel_video = os.path.relpath(case.source, root)
        lines.append(json.dumps({"case_id": f"w_{case.case_id}", "video": rel_video, "annotation": ann_path.name}))
    path = root / "wild.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)
