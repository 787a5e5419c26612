"""Labelled windows for the decision model, each measured by the curate job's own analysis.

Three origins, each row tagged with its game so that evaluation can hold a game out:
- real captures (`g2w capture`) of every capturable game: clean play, labelled `accept`;
- the procedural samples (`g2w.sample_data`), labelled from their sidecar's event spans;
- the real clips again with synthetic defects (`perturb.py`), labelled with the defect (a dark
  held frame is `too_dark`), and once more relit to another exposure, clean, flat-shaded (still
  clean) or with a defect.
The cue vector of every window comes from `AnalyzeWindows.analyze_source`, the function the
curate job runs per segment, so training sees exactly what the job measures.
"""

from __future__ import annotations

import hashlib
import json
import os

from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.decision.model import ACCEPT, CUES
from g2w.curate.decision.perturb import RELIT, write_perturbed
from g2w.sample_data.generate import generate_samples
from g2w.video.sources import probe_row

PROCEDURAL = "procedural"  # the group of the sample videos
_SPAN_CLASS = {"frozen": "frozen", "dark": "too_dark", "blur": "blurry", "shaky": "shaky"}
MIN_COVER = 0.5  # a sample window is labelled with a defect covering at least this share of it


def measured_windows(path: str) -> list[dict]:
    """The job's analysis of one video (static-edges screen: UI is not a cue here): the measured
    rows only, errors dropped."""
    rows = AnalyzeWindows(ui_detector="static-edges").analyze_source(probe_row(path))
    return [r for r in rows if r["status"] == "ok"]


def _row(r: dict, game: str, origin: str, label: str, video: str) -> dict:
    return {
        "game": game,
        "origin": origin,
        "label": label,
        "video": os.path.basename(video),
        "start_s": r["start_s"],
        **{c: float(r[c]) for c in CUES},
    }


def clip_rows(path: str, game: str, workdir: str) -> list[dict]:
    """Every window of one clean clip (`accept`) and of its perturbed copy (the defect); the
    defects' strengths are seeded by the clip's name, so a rebuild writes the same copy."""
    os.makedirs(workdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(path))[0]
    rows = [_row(r, game, "real", ACCEPT, path) for r in measured_windows(path)]
    out = os.path.join(workdir, f"perturbed-{name}.mp4")
    labels = write_perturbed(path, out, seed=_seed(name))
    return rows + [_row(r, game, "perturbed", labels[int(r["window_index"])], out) for r in measured_windows(out)]


def relit_rows(path: str, game: str, workdir: str) -> list[dict]:
    """Every window of one clean clip's relit copy: each window at another exposure, clean
    (`accept`) or with a defect (`perturb.RELIT`)."""
    os.makedirs(workdir, exist_ok=True)
    name = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(workdir, f"relit-{name}.mp4")
    labels = write_perturbed(path, out, seed=_seed("relit-" + name), defects=RELIT, relit=True)
    return [_row(r, game, "relit", labels[int(r["window_index"])], out) for r in measured_windows(out)]


def _seed(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def window_label(sidecar: dict, start_s: float, end_s: float) -> str | None:
    """A sample window's label from its sidecar, or None where it is ambiguous (a defect
    covering part of it, or a cut inside, which is the cut detector's business)."""
    if any(start_s < c["time_s"] < end_s for c in sidecar["cuts"]):
        return None
    for kind, label in _SPAN_CLASS.items():
        cover = sum(max(0.0, min(end_s, s["end_s"]) - max(start_s, s["start_s"])) for s in sidecar[f"{kind}_spans"])
        if cover >= MIN_COVER * (end_s - start_s):
            return label
        if cover > 0:
            return None
    return ACCEPT


def sample_rows(workdir: str, count: int, seed: int = 0, duration_s: float = 20.0) -> list[dict]:
    """Windows of `count` procedural sample videos (no baked HUD), labelled from the sidecars."""
    rows = []
    for path in generate_samples(workdir, count, seed=seed, duration_s=duration_s, baked_hud=False):
        with open(os.path.splitext(path)[0] + ".json") as f:
            sidecar = json.load(f)
        for r in measured_windows(path):
            label = window_label(sidecar, r["start_s"], r["end_s"])
            if label is not None:
                rows.append(_row(r, PROCEDURAL, "procedural", label, path))
    return rows
