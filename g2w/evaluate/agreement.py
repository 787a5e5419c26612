"""Judge reliability across repeated ratings of the same videos (Table 5).

Each run is a judgments.jsonl (or a run folder holding one): repeated calls of one judge,
other models, or human ratings written in the same record form. For every metric (AAR, UI,
Clean, BG, Uncertain) each run gives one score per video, so the data is a videos x raters
matrix. Per metric:

- ICC(A,1) and ICC(A,k): two-way random effects, absolute agreement (McGraw & Wong 1996), for
  a single rating and for the mean of the k runs; over videos rated by every run.
- Krippendorff's alpha, interval metric: 1 - D_o / D_e over all pairable values, so videos
  some runs lack still count.
- Kendall's W: agreement of the runs' rankings of the videos (average ranks for ties, with the
  tie correction); over videos rated by every run.
"""

from __future__ import annotations

import math

import numpy as np

from g2w.evaluate.metrics import video_scores
from g2w.evaluate.records import read_records

METRICS = ("AAR", "UI", "Clean", "BG", "Uncertain")


def icc_absolute(x: np.ndarray) -> tuple[float, float]:
    """(ICC(A,1), ICC(A,k)) of a complete n x k matrix."""
    n, k = x.shape
    if n < 2 or k < 2:
        return math.nan, math.nan
    grand = x.mean()
    rows, cols = x.mean(axis=1), x.mean(axis=0)
    msr = k * ((rows - grand) ** 2).sum() / (n - 1)
    msc = n * ((cols - grand) ** 2).sum() / (k - 1)
    mse = ((x - rows[:, None] - cols[None, :] + grand) ** 2).sum() / ((n - 1) * (k - 1))
    single_den = msr + (k - 1) * mse + k * (msc - mse) / n
    mean_den = msr + (msc - mse) / n
    single = (msr - mse) / single_den if single_den else math.nan
    average = (msr - mse) / mean_den if mean_den else math.nan
    return float(single), float(average)


def krippendorff_interval(x: np.ndarray) -> float:
    """Krippendorff's alpha (interval) of an n units x k raters matrix; NaN marks missing."""
    units = [row[~np.isnan(row)] for row in x]
    units = [u for u in units if len(u) >= 2]
    if not units:
        return math.nan
    values = np.concatenate(units)
    n = len(values)
    d_o = sum(((u[:, None] - u[None, :]) ** 2).sum() / (len(u) - 1) for u in units) / n
    d_e = ((values[:, None] - values[None, :]) ** 2).sum() / (n * (n - 1))
    return float(1 - d_o / d_e) if d_e > 0 else math.nan


def _average_ranks(v: np.ndarray) -> tuple[np.ndarray, float]:
    """Ranks 1..n with ties averaged, and the tie term sum(t^3 - t)."""
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ties = 0.0
    i = 0
    while i < len(v):
        j = i
        while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        t = j - i + 1
        ties += t**3 - t
        i = j + 1
    return ranks, ties


def kendall_w(x: np.ndarray) -> float:
    """Kendall's W of a complete n items x m raters matrix (tie-corrected)."""
    n, m = x.shape
    if n < 2 or m < 2:
        return math.nan
    ranked = [_average_ranks(x[:, j]) for j in range(m)]
    totals = np.sum([r for r, _ in ranked], axis=0)
    s = ((totals - totals.mean()) ** 2).sum()
    denom = m**2 * (n**3 - n) - m * sum(t for _, t in ranked)
    return float(12 * s / denom) if denom > 0 else math.nan


def run_scores(records: list[dict]) -> dict[str, dict[str, float]]:
    """Per judged video: its AAR, UI, Clean, BG (0..100) and Uncertain (0..1)."""
    out = {}
    for rec in records:
        if rec["status"] != "ok":
            continue
        s = video_scores(rec)
        scores = {
            "BG": 100 * float(np.mean(s["bg"])) if s["bg"] else math.nan,
            "Uncertain": s["uncertain"] if s["uncertain"] is not None else math.nan,
        }
        for name, col in (("UI", 0), ("Clean", 1), ("AAR", 2)):
            scores[name] = 100 * float(np.mean([f[col] for f in s["frames"]])) if s["frames"] else math.nan
        out[rec["case_id"]] = scores
    return out


def _clean(v: float) -> float | None:
    return None if math.isnan(v) else round(v, 4)


def agreement(runs: list[list[dict]]) -> dict:
    """Reliability of each metric across runs (lists of records over the same cases)."""
    per_run = [run_scores(r) for r in runs]
    videos = sorted(set().union(*per_run))
    result = {"raters": len(runs), "videos": len(videos), "metrics": {}}
    for metric in METRICS:
        x = np.array([[run.get(v, {}).get(metric, math.nan) for run in per_run] for v in videos], dtype=float)
        complete = x[~np.isnan(x).any(axis=1)] if len(x) else x
        single, average = icc_absolute(complete) if len(complete) else (math.nan, math.nan)
        result["metrics"][metric] = {
            "ICC(A,1)": _clean(single),
            f"ICC(A,{len(runs)})": _clean(average),
            "Krippendorff alpha": _clean(krippendorff_interval(x)) if len(x) else None,
            "Kendall W": _clean(kendall_w(complete)) if len(complete) else None,
            "complete_videos": int(len(complete)),
        }
    return result


def agreement_from_paths(paths: list[str]) -> dict:
    return {"runs": list(paths), **agreement([read_records(p) for p in paths])}


def agreement_table(result: dict) -> str:
    k = result["raters"]
    cols = ["ICC(A,1)", f"ICC(A,{k})", "Krippendorff alpha", "Kendall W"]
    lines = [
        f"Reliability over {result['videos']} videos and {k} runs",
        "",
        "| Metric | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for metric, vals in result["metrics"].items():
        name = "Unc. ↓" if metric == "Uncertain" else metric
        lines.append(f"| {name} | " + " | ".join("–" if vals[c] is None else f"{vals[c]:.3f}" for c in cols) + " |")
    return "\n".join(lines) + "\n"
