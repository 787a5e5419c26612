"""The evaluation run's HTML report: scores, then the evidence and verdicts of the worst videos.

A person reading it should see at once how the method scored and why: for the lowest-scoring
videos it shows the judge's overview images (ORIGINAL above EDITED, boxes in red) beside
every element and frame verdict with its note, so a wrong verdict or a broken edit is easy to
spot. Failed cases are listed with their reasons.
"""

from __future__ import annotations

import html
import os

from g2w.evaluate.metrics import TABLE3, TABLE4
from g2w.io.html_page import key_values, table, write_html

WORST = 5
OVERVIEWS_PER_VIDEO = 4


def _metrics_table(metrics: dict) -> str:
    rows = []
    for split, m in metrics["splits"].items():
        rows.append({"split": split, **{k: m[k] for k in (*TABLE3, *TABLE4, "Coverage", "cases")}})
    cols = ["split", *TABLE3, *TABLE4, "Coverage", "cases"]
    overall = metrics.get("Overall")
    note = f"<p>Overall = {overall}</p>" if overall is not None else ""
    return table(rows, cols) + note


def _worst(records: list[dict], metrics: dict) -> list[dict]:
    def badness(rec):
        v = metrics["splits"][rec["split"]]["per_video"].get(rec["case_id"], {})
        return (v.get("AAR") if v.get("AAR") is not None else 100) + (v.get("BG") if v.get("BG") is not None else 100)

    judged = [r for r in records if r["status"] == "ok"]
    return sorted(judged, key=lambda r: (badness(r), r["case_id"]))[:WORST]


def _relative(path: str, root: str) -> str:
    if "://" in root or "://" in path:
        return path[len(root.rstrip("/")) + 1 :] if path.startswith(root.rstrip("/") + "/") else path
    return os.path.relpath(path, root)


def _video_section(rec: dict, out_dir: str, metrics: dict) -> str:
    scores = metrics["splits"][rec["split"]]["per_video"].get(rec["case_id"], {})
    parts = [
        f"<h3>{html.escape(rec['case_id'])} ({rec['split']})</h3>",
        table([{k: scores.get(k) for k in TABLE3}], list(TABLE3)),
    ]
    evidence = rec.get("evidence_dir")
    if evidence:
        rel = _relative(evidence, out_dir)
        count = len(rec["expected"]["samples"]) if rec.get("expected") else 0
        step = max(1, count // OVERVIEWS_PER_VIDEO)
        for k in range(0, count, step)[:OVERVIEWS_PER_VIDEO]:
            src = html.escape(f"{rel}/{k + 1:04d}.png")
            parts.append(f'<a href="{src}"><img src="{src}" width="420" style="display:inline-block;margin:2px"></a>')
    labels = {(s["sample_id"], e["element_id"]): e["label"] for s in rec["expected"]["samples"] for e in s["elements"]}
    rows = [
        {
            "sample": e["sample_id"],
            "element": e["element_id"],
            "label": labels.get((e["sample_id"], e["element_id"]), ""),
            "removal": e["removal"],
            "artifact": e["artifact"],
            "confidence": e["confidence"],
            "note": e["note"],
        }
        for e in rec["judgment"]["elements"]
    ]
    parts.append(table(rows, ["sample", "element", "label", "removal", "artifact", "confidence", "note"]))
    frames = [
        {"sample": f["sample_id"], "preservation": f["preservation"], "confidence": f["confidence"], "note": f["note"]}
        for f in rec["judgment"]["frames"]
    ]
    parts.append(table(frames, ["sample", "preservation", "confidence", "note"]))
    return "\n".join(parts)


def write_report(
    out_dir: str, records: list[dict], metrics: dict, summary: dict, tables_md: str, root: str | None = None
) -> str:
    """report.html into the local folder `out_dir`; `root` is where the run's output lives (the
    folder itself, or the bucket prefix it is uploaded to), which evidence links are relative to."""
    failed = [
        {
            "case": r["case_id"],
            "split": r["split"],
            "status": r["status"],
            "reason": r["reason"],
            "counts as": "failure (scored 0)" if r["status"] == "invalid" or r.get("method_fault") else "excluded",
            "message": (r.get("message") or "")[:200],
        }
        for r in records
        if r["status"] != "ok"
    ]
    worst = _worst(records, metrics)
    path = os.path.join(out_dir, "report.html")
    write_html(
        path,
        "g2w HUD-removal evaluation",
        [
            ("Summary", key_values({k: v for k, v in summary.items() if v is not None and not isinstance(v, dict)})),
            ("Scores", _metrics_table(metrics)),
            ("Tables (Markdown, as in table.md)", f"<pre>{html.escape(tables_md)}</pre>"),
            (
                f"The {len(worst)} lowest-scoring judged videos (AAR + BG)",
                "\n".join(_video_section(r, root or out_dir, metrics) for r in worst) or "<p>none judged</p>",
            ),
            (
                "Failed or excluded cases",
                table(failed, ["case", "split", "status", "reason", "counts as", "message"])
                if failed
                else "<p>none</p>",
            ),
        ],
    )
    return path
