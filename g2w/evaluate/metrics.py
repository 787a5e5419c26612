"""Scores from judgment records (Appendix J.5, Tables 3 and 4).

Per element i in sampled frame t:
    r = [removal == removed]                         strict UI removal (uncertain fails)
    c = [removal == removed and artifact == none]    clean removal
    a = r * {none: 1, minor: 0.5, major: 0, uncertain: 0}[artifact]   artifact-adjusted
Frame means R_t, C_t, A_t over the frame's elements; frames without elements are left out of
removal and kept for background. Video score = mean over its frames with elements; dataset
score = mean over videos (frame macro, then video macro). BG per frame is 1 / 0.5 / 0 for
preserved / minor_change / major_change or invalid, averaged over all sampled frames of a
video, then over videos.

Also reported:
- Uncertain: per video, the share of element verdicts with removal or artifact "uncertain";
  macro over judged videos (a rate, 0..1, lower is better; Table 3's last column).
- Box-Micro: r pooled over every (frame, element) in the split.
- Frame-Macro: R_t pooled over every frame with elements in the split (not per video first).
- Track-All / Track-Clean: a track is one element identity (annotation instance) in one video
  across the sampled frames where it is annotated; it is complete when r = 1 (Track-All) or
  c = 1 (Track-Clean) at every one of them. Share of complete tracks.
- Coverage: judged videos (status "ok") / cases.
Videos whose judgment stayed invalid, and edits that failed validation (missing, broken,
truncated, wrong geometry), score zero everywhere: never success. Cases broken on the
benchmark's side (bad source or annotation, judge unreachable) are left out and lower coverage.
Overall = (AAR_S + BG_S + AAR_W + BG_W) / 4 when both splits are present.
All scores are percentages except Uncertain and Coverage.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

ARTIFACT_WEIGHT = {"none": 1.0, "minor": 0.5, "major": 0.0, "uncertain": 0.0, "not_applicable": 0.0}
BG_WEIGHT = {"preserved": 1.0, "minor_change": 0.5, "major_change": 0.0, "invalid": 0.0}
TABLE3 = ("AAR", "UI", "Clean", "BG", "Uncertain")
TABLE4 = ("Frame-Macro", "Box-Micro", "Track-All", "Track-Clean")


def scored(record: dict) -> bool:
    """Does this record enter the scores (judged, invalid, or the method's own failure)?"""
    return record["status"] in ("ok", "invalid") or bool(record.get("method_fault"))


def video_scores(record: dict) -> dict:
    """Frame-level and element-level scores of one scored video.

    Returns {"frames": [(R, C, A) per frame with elements], "bg": [per sampled frame],
    "elements": [(instance_id, r, c)], "uncertain": rate or None}.
    """
    expected = record.get("expected") or {"samples": []}
    judged = record["status"] == "ok"
    verdicts, frames = {}, {}
    if judged:
        verdicts = {(e["sample_id"], e["element_id"]): e for e in record["judgment"]["elements"]}
        frames = {f["sample_id"]: f for f in record["judgment"]["frames"]}
    out = {"frames": [], "bg": [], "elements": [], "uncertain": None}
    uncertain, total = 0, 0
    for sample in expected["samples"]:
        sid = sample["sample_id"]
        out["bg"].append(BG_WEIGHT[frames[sid]["preservation"]] if judged else 0.0)
        rows = []
        for el in sample["elements"]:
            v = verdicts.get((sid, el["element_id"])) if judged else None
            removed = v is not None and v["removal"] == "removed"
            r = 1.0 if removed else 0.0
            c = 1.0 if removed and v["artifact"] == "none" else 0.0
            a = ARTIFACT_WEIGHT[v["artifact"]] if removed else 0.0
            rows.append((r, c, a))
            out["elements"].append((el["instance_id"], r, c))
            if v is not None:
                total += 1
                uncertain += v["removal"] == "uncertain" or v["artifact"] == "uncertain"
        if rows:
            out["frames"].append(tuple(float(np.mean(col)) for col in zip(*rows)))
    if judged and total:
        out["uncertain"] = uncertain / total
    return out


def _pct(values: list[float]) -> float | None:
    return round(100 * float(np.mean(values)), 2) if values else None


def split_metrics(records: list[dict]) -> dict:
    """Every metric for the records of one split."""
    statuses = Counter(r["status"] for r in records)
    reasons = Counter(r["reason"] for r in records if r["reason"])
    ui_v, clean_v, aar_v, bg_v, unc_v = [], [], [], [], []
    pooled_frames, pooled_boxes = [], []
    tracks: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    per_video = {}
    for rec in records:
        if not scored(rec):
            continue
        s = video_scores(rec)
        if s["frames"]:
            ui_v.append(np.mean([f[0] for f in s["frames"]]))
            clean_v.append(np.mean([f[1] for f in s["frames"]]))
            aar_v.append(np.mean([f[2] for f in s["frames"]]))
        if s["bg"]:
            bg_v.append(np.mean(s["bg"]))
        if s["uncertain"] is not None:
            unc_v.append(s["uncertain"])
        pooled_frames += [f[0] for f in s["frames"]]
        pooled_boxes += [e[1] for e in s["elements"]]
        for inst, r, c in s["elements"]:
            tracks[(rec["case_id"], inst)].append((r, c))
        per_video[rec["case_id"]] = {
            "status": rec["status"],
            "reason": rec["reason"],
            "AAR": _pct([f[2] for f in s["frames"]]),
            "UI": _pct([f[0] for f in s["frames"]]),
            "Clean": _pct([f[1] for f in s["frames"]]),
            "BG": _pct(s["bg"]),
            "Uncertain": None if s["uncertain"] is None else round(s["uncertain"], 4),
        }
    track_all = [all(r == 1 for r, _ in v) for v in tracks.values()]
    track_clean = [all(c == 1 for _, c in v) for v in tracks.values()]
    return {
        "AAR": _pct(aar_v),
        "UI": _pct(ui_v),
        "Clean": _pct(clean_v),
        "BG": _pct(bg_v),
        "Uncertain": round(float(np.mean(unc_v)), 4) if unc_v else None,
        "Frame-Macro": _pct(pooled_frames),
        "Box-Micro": _pct(pooled_boxes),
        "Track-All": _pct(track_all),
        "Track-Clean": _pct(track_clean),
        "Coverage": round(statuses.get("ok", 0) / len(records), 4) if records else None,
        "cases": len(records),
        "scored_videos": sum(scored(r) for r in records),
        "removal_videos": len(aar_v),
        "frames_with_elements": len(pooled_frames),
        "elements": len(pooled_boxes),
        "tracks": len(tracks),
        "status_counts": dict(statuses),
        "reason_counts": dict(reasons),
        "per_video": per_video,
    }


def overall(splits: dict) -> float | None:
    syn, wild = splits.get("synthetic"), splits.get("wild")
    if not syn or not wild:
        return None
    parts = [syn["AAR"], syn["BG"], wild["AAR"], wild["BG"]]
    if any(p is None for p in parts):
        return None
    return round(sum(parts) / 4, 2)


def compute_metrics(records: list[dict]) -> dict:
    by_split = defaultdict(list)
    for rec in records:
        by_split[rec["split"]].append(rec)
    splits = {name: split_metrics(recs) for name, recs in sorted(by_split.items())}
    return {"splits": splits, "Overall": overall(splits)}


def _cell(value, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _mark(flag) -> str:
    return {True: "✔", False: "✘"}.get(flag, "?")


def results_tables(rows: list[dict]) -> str:
    """Markdown for Table 3 (and Table 4) in the paper's column order.

    Each row: {"model", "mask" (bool|None), "ref_pt" (bool|None), "splits": {name: metrics}}.
    """
    head3 = ["Model", "Mask", "Ref P.T.", "Overall"] + [f"S {m}" for m in TABLE3] + [f"W {m}" for m in TABLE3]
    head4 = ["Model", "Mask", "Ref P.T."] + [f"S {m}" for m in TABLE4] + [f"W {m}" for m in TABLE4]
    lines = [
        "Main comparison (S = synthetic, W = in-the-wild; Uncertain is a rate, lower is better)",
        "",
        "| " + " | ".join(head3) + " |",
        "|" + "---|" * len(head3),
    ]
    for row in rows:
        cells = [row["model"], _mark(row.get("mask")), _mark(row.get("ref_pt")), _cell(overall(row["splits"]))]
        for split in ("synthetic", "wild"):
            m = row["splits"].get(split) or {}
            cells += [_cell(m.get(k), 2) for k in TABLE3]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Fine-grained removal", "", "| " + " | ".join(head4) + " |", "|" + "---|" * len(head4)]
    for row in rows:
        cells = [row["model"], _mark(row.get("mask")), _mark(row.get("ref_pt"))]
        for split in ("synthetic", "wild"):
            m = row["splits"].get(split) or {}
            cells += [_cell(m.get(k)) for k in TABLE4]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
