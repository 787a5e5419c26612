"""Results tables across evaluate runs: one row per method, synthetic and wild side by side.

Each evaluate run scores one method's edits on one case set, so a method usually has two runs
(its synthetic and its wild cases). Runs are grouped by the method named in their
`metrics.json` (from the edits' `method.json`); the row then carries both splits and, when
both are present, Overall = (AAR_S + BG_S + AAR_W + BG_W) / 4. Two runs of one method on the
same split are a mistake in the listing and are refused rather than silently merged.
"""

from __future__ import annotations

import json
import os

from g2w.evaluate.metrics import results_tables


def _metrics(run: str) -> dict:
    path = run if run.endswith(".json") else os.path.join(run, "metrics.json")
    with open(path) as f:
        return json.load(f)


def combine_runs(runs: list[str]) -> list[dict]:
    rows: dict[str, dict] = {}
    for run in runs:
        m = _metrics(run)
        info = m.get("method") or {"model": os.path.basename(os.path.normpath(run))}
        row = rows.setdefault(info["model"], {"model": info["model"], "mask": info.get("mask"),
                                              "ref_pt": info.get("ref_pt"), "splits": {}})
        for split, values in m["splits"].items():
            if split in row["splits"]:
                raise ValueError(f"{run}: method {info['model']!r} already has a {split} run")
            row["splits"][split] = values
    return list(rows.values())


def combined_table(runs: list[str]) -> str:
    return results_tables(combine_runs(runs))
