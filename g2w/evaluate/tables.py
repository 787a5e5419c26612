"""Results tables across evaluate runs: one row per method, synthetic and wild side by side.

Each evaluate run scores one method's edits on one case set, so a method usually has two runs
(its synthetic and its wild cases). Runs are grouped by the method named in their
`metrics.json` (from the edits' `method.json`); the row then carries both splits and, when
both are present, Overall = (AAR_S + BG_S + AAR_W + BG_W) / 4. Two runs of one method on the
same split are a mistake in the listing and are refused rather than silently merged.

Runs whose canvas, rate, judge, judge model, prompt or child-element option differ are not one
comparison (J.2, J.6): they are refused unless `allow_mixed`, and then the table lists what
differs under a warning line.
"""

from __future__ import annotations

import json
import os

from g2w.evaluate.metrics import results_tables
from g2w.evaluate.run_record import differences


class MixedRuns(ValueError):
    """The runs were evaluated under different settings."""


def _metrics(run: str) -> dict:
    path = run if run.endswith(".json") else os.path.join(run, "metrics.json")
    with open(path) as f:
        return json.load(f)


def combine_runs(runs: list[str], allow_mixed: bool = False) -> tuple[list[dict], dict]:
    """(table rows, the settings that differ between runs: empty when they all match)."""
    rows: dict[str, dict] = {}
    records = {}
    for run in runs:
        m = _metrics(run)
        records[run] = m.get("run")
        info = m.get("method") or {"model": os.path.basename(os.path.normpath(run))}
        row = rows.setdefault(
            info["model"],
            {"model": info["model"], "mask": info.get("mask"), "ref_pt": info.get("ref_pt"), "splits": {}},
        )
        for split, values in m["splits"].items():
            if split in row["splits"]:
                raise ValueError(f"{run}: method {info['model']!r} already has a {split} run")
            row["splits"][split] = values
    mixed = differences(records)
    if mixed and not allow_mixed:
        raise MixedRuns(
            "runs differ in " + _describe(mixed) + "; they are not one comparison "
            "(pass --allow-mixed to tabulate them anyway, marked as mixed)"
        )
    return list(rows.values()), mixed


def _describe(mixed: dict) -> str:
    return "; ".join(
        f"{key}: " + ", ".join(f"{value} ({', '.join(names)})" for value, names in by.items())
        for key, by in mixed.items()
    )


def combined_table(runs: list[str], allow_mixed: bool = False) -> str:
    rows, mixed = combine_runs(runs, allow_mixed)
    text = results_tables(rows)
    if mixed:
        text = f"**Mixed runs (--allow-mixed), not one formal comparison:** {_describe(mixed)}\n\n" + text
    return text
