"""The main job end to end on sample footage: what `make demo` runs.

Stages so far: generate sample gameplay videos -> probe them on Ray Data -> manifest, summary
and an HTML report with a contact sheet of every video. Later stages (curation, synthesis,
evaluation) append to the same run.
"""

from __future__ import annotations

import json
import os
import time

import pyarrow.parquet as pq

from g2w.jobs.probe import run_probe
from g2w.report import contact_sheet, key_values, save_png, table, write_html
from g2w.sample_data import generate_samples
from g2w.video.decode import FrameReader

FRAMES_PER_VIDEO = 5


def _sidecar(video_path: str) -> dict:
    path = os.path.splitext(video_path)[0] + ".json"
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def _sheet_row(path: str, truth: dict, duration_s: float) -> tuple[list, list[str]]:
    """Evenly spaced frames, each labelled with the ground-truth block it falls in."""
    times = [(k + 0.5) * duration_s / FRAMES_PER_VIDEO for k in range(FRAMES_PER_VIDEO)]
    blocks = truth.get("blocks", [])
    kinds = [next((b["kind"] for b in blocks if b["start_s"] <= t < b["end_s"]), "") for t in times]
    frames = list(FrameReader(path).read_at(times))
    labels = [f"{os.path.basename(path)[:-4]} {t:.1f}s {kind}" for t, kind in zip(times, kinds)]
    return frames, labels


def _report(out_dir: str, rows: list[dict], summary: dict) -> str:
    images, labels = [], []
    for row in rows:
        if row["status"] != "ok":
            continue
        frames, names = _sheet_row(row["path"], _sidecar(row["path"]), row["duration_s"])
        images += frames
        labels += names
    sheet_name = "contact_sheet.png"
    if images:
        save_png(os.path.join(out_dir, sheet_name), contact_sheet(images, labels, FRAMES_PER_VIDEO))
    listing = []
    for row in rows:
        truth = _sidecar(row["path"])
        listing.append({
            "file": os.path.basename(row["path"]), "status": row["status"], "reason": row["reason"],
            "size": f"{row['width']}x{row['height']}", "fps": round(row["fps"], 3), "frames": row["frame_count"],
            "duration_s": round(row["duration_s"], 2), "codec": row["codec"],
            "games": ", ".join(truth.get("styles", [])), "cuts": len(truth.get("cuts", [])),
            "events": ", ".join(b["kind"] for b in truth.get("blocks", []) if b["kind"] != "play"),
            "hud": ", ".join(e["label"] for e in truth.get("hud", {}).get("elements", [])),
        })
    columns = list(listing[0]) if listing else []
    report = os.path.join(out_dir, "report.html")
    write_html(report, "g2w demo run", [
        ("Summary", key_values(summary)),
        ("Sources (sources.parquet)", table(listing, columns)),
        ("Frames across each video, labelled by ground-truth block", f'<img src="{sheet_name}" style="max-width:100%">' if images else ""),
    ])
    return report


def run_demo(out_dir: str | os.PathLike, count: int = 5, seed: int = 0, duration_s: float = 20.0) -> dict:
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    timings = {}
    start = time.perf_counter()
    print(f"[1/2] sample videos: {count} x {duration_s:g} s -> {out_dir}/raw", flush=True)
    videos = generate_samples(os.path.join(out_dir, "raw"), count, seed, duration_s,
                              progress=lambda i, n, p: print(f"  {i}/{n} {p}", flush=True))
    timings["samples_s"] = round(time.perf_counter() - start, 2)

    print("[2/2] probe on Ray Data -> sources.parquet", flush=True)
    manifest = os.path.join(out_dir, "sources.parquet")
    probe_summary = run_probe(videos, manifest)
    timings["probe_s"] = probe_summary["seconds"]

    rows = pq.read_table(manifest).to_pylist()
    summary = {"videos": count, "seed": seed, "duration_s": duration_s, **probe_summary, "timings": timings}
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    report = _report(out_dir, rows, summary)
    print(f"manifest: {manifest}\nsummary:  {os.path.join(out_dir, 'summary.json')}\nreport:   {report}", flush=True)
    return summary
