"""Long-horizon measurements on real captures, written to docs/results/long_horizon.md.

Input: `g2w capture` output folders of minute-scale clips (`--duration-s 40` or more; only the
Doom games' demos are that long). Their HUD runs (`cases/*/hud.mp4`) are curated as
docs/long_horizon.md documents for footage with a HUD, `g2w curate CLIPS --output RUN --mode long
--keep-hud` with every other option at its default, and their clean runs (`clean/*.mp4`, the same
gameplay without HUD) with `g2w curate CLIPS --output RUN --mode long`, so a HUD decision and a
decision about the footage itself can be told apart. Then `g2w trajectory RUN` on the HUD run.

1. Segmentation throughput: source frames per second of the analysis stage per CPU of the local
   cluster, beside GameVerse's reported ~400 frames/s per worker (its hardware unknown; a ratio of
   reported figures, not a side-by-side run).
2. Segment lengths at the default 30-120 s bounds: count, min/median/max, reasons of the rejected
   stretches, and per source the window verdicts the segments were built from, in time order.
3. Trajectory verdicts of the kept segments.
Trajectory accuracy is measured by benchmarks/trajectories.py.

    python benchmarks/long_horizon.py --corpus CAPTURE_OUT [--corpus CAPTURE_OUT ...] --work WORK

WORK's runs (`WORK/long_hud`, `WORK/long_clean`) are removed first, so every figure is measured
rather than resumed.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys
from collections import Counter

import numpy as np
import pyarrow.parquet as pq

from g2w.cli import main as g2w
from g2w.io.results_page import markdown_table, write_results_page

GAMEVERSE_FPS_PER_WORKER = 400.0
SELECTION_ONLY = {"not_sampled", "near_duplicate"}  # verdicts that never break a segment


def clips_of(corpora: list[str]) -> tuple[list[str], list[str]]:
    """(HUD clips, clean clips) of the capture folders."""
    hud, clean = [], []
    for corpus in corpora:
        hud += sorted(glob.glob(os.path.join(corpus, "cases", "*", "hud.mp4")))
        clean += sorted(glob.glob(os.path.join(corpus, "clean", "*.mp4")))
    return hud, clean


def clip_name(path: str) -> str:
    """The capture's clip id (`freedoom1-demo4-s0083`): the case folder of a HUD run, the file of a clean one."""
    stem = os.path.splitext(os.path.basename(path))[0]
    return os.path.basename(os.path.dirname(path)) if stem == "hud" else stem


def curate(clips: list[str], run: str, keep_hud: bool) -> dict:
    shutil.rmtree(run, ignore_errors=True)
    argv = ["curate", *clips, "--output", run, "--mode", "long", *(["--keep-hud"] if keep_hud else [])]
    print("g2w " + " ".join(argv), file=sys.stderr, flush=True)
    if g2w(argv) != 0:
        raise SystemExit(f"g2w curate failed for {run}")
    with open(os.path.join(run, "summary.json")) as f:
        return json.load(f)


def length_stats(durations: list[float]) -> list:
    if not durations:
        return [0, "-", "-", "-"]
    d = np.array(durations)
    return [len(d), round(float(d.min()), 1), round(float(np.median(d)), 1), round(float(d.max()), 1)]


def window_verdicts(run: str) -> dict[str, str]:
    """Per source, its windows' verdicts in time order: `ok` for a window a segment may hold
    (kept, or a selection verdict only), else the failed checks."""
    rows = pq.read_table(
        os.path.join(run, "windows.parquet"), columns=["source", "start_s", "status", "reason", "checks_failed"]
    ).to_pylist()
    out: dict[str, list] = {}
    for r in sorted(rows, key=lambda r: (r["source"], r["start_s"])):
        usable = r["status"] == "kept" or (r["reason"] in SELECTION_ONLY and not r["checks_failed"])
        verdict = "ok" if usable else "+".join(r["checks_failed"] or [r["reason"] or r["status"]])
        out.setdefault(r["source"], []).append(f"{r['start_s']:g}s {verdict}")
    return {k: ", ".join(v) for k, v in out.items()}


def lengths_section(label: str, run: str, summary: dict) -> str:
    segments = pq.read_table(os.path.join(run, "manifest.parquet")).to_pylist()
    kept = [s["duration_s"] for s in segments if s["status"] == "kept"]
    reasons = Counter(s["reason"] for s in segments if s["status"] != "kept")
    text = f"### {label}\n\n" + markdown_table(
        ["sources", "kept", "min s", "median s", "max s", "kept hours", "HUD-marked", "not kept, by reason"],
        [
            [
                summary["sources"]["total"],
                *length_stats(kept),
                summary["segments"]["kept_hours"],
                summary["segments"]["hud_marked"],
                json.dumps(dict(sorted(reasons.items()))) if reasons else "-",
            ]
        ],
    )
    rows = [
        [
            clip_name(s["source"]),
            s["start_s"],
            s["end_s"],
            round(s["duration_s"], 1),
            s["status"],
            s["reason"] or "-",
            s["hud_status"],
            f"{s['start_boundary']} / {s['end_boundary']}",
            ", ".join(s["checks_failed"]) or "-",
        ]
        for s in sorted(segments, key=lambda s: (s["source"], s["start_s"]))
    ]
    text += "\n\nSegments and rejected stretches:\n\n" + markdown_table(
        ["clip", "start s", "end s", "length s", "status", "reason", "HUD", "boundaries", "checks failed inside"],
        rows,
    )
    verdicts = window_verdicts(run)
    text += "\n\nWindow verdicts (5 s windows, by start):\n\n" + markdown_table(
        ["clip", "windows"], [[clip_name(src), v] for src, v in sorted(verdicts.items())]
    )
    return text + "\n\n"


def throughput_section(summary: dict, sources: int) -> str:
    cpus = max(1.0, float(summary["cluster"]["CPU"]))
    fps = summary["throughput"]["source_frames_per_s"] or 0.0
    return (
        "## Segmentation throughput\n\n"
        + markdown_table(
            [
                "stage",
                "sources",
                "frames/s (cluster)",
                "frames/s per CPU",
                "GameVerse per worker (reported)",
                "ours / GameVerse",
            ],
            [
                [
                    "analysis (decode, cuts, quality, UI, embed)",
                    sources,
                    fps,
                    round(fps / cpus, 1),
                    GAMEVERSE_FPS_PER_WORKER,
                    round(fps / cpus / GAMEVERSE_FPS_PER_WORKER, 3),
                ]
            ],
        )
        + f"\n\nThe HUD run's analysis stage; local cluster: {cpus:g} CPUs.\n\n"
    )


def trajectory_section(run: str) -> str:
    print(f"g2w trajectory {run}", file=sys.stderr, flush=True)
    if g2w(["trajectory", run]) != 0:
        return "## Trajectories of the kept segments\n\n`g2w trajectory` found no kept segment.\n\n"
    dataset = pq.read_table(os.path.join(run, "dataset.parquet")).to_pylist()
    rows = [
        [
            clip_name(r["source"]),
            r["start_s"],
            round(r["duration_s"], 1),
            r["hud_status"],
            r["trajectory_status"],
            r["trajectory_reason"] or "-",
            r["jumps"],
            r["jitter_deg_s"],
            r["drift_deg_s"],
        ]
        for r in dataset
        if r["status"] == "kept"
    ]
    return (
        "## Trajectories of the kept segments (HUD run, `g2w trajectory RUN`, FOV estimated, HUD masked)\n\n"
        + markdown_table(
            ["clip", "start s", "length s", "HUD", "verdict", "reason", "jumps", "jitter deg/s", "drift deg/s"], rows
        )
        + "\n\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", required=True, action="append", help="a g2w capture output folder (cases/, clean/); repeatable"
    )
    parser.add_argument("--work", required=True)
    parser.add_argument("--output", default="docs/results/long_horizon.md")
    args = parser.parse_args()
    hud, clean = clips_of(args.corpus)
    if not hud and not clean:
        raise SystemExit(f"no captured clips in {args.corpus}")
    body = ""
    hud_run, clean_run = os.path.join(args.work, "long_hud"), os.path.join(args.work, "long_clean")
    sections = []
    if hud:
        summary = curate(hud, hud_run, keep_hud=True)
        body += throughput_section(summary, len(hud))
        sections.append(lengths_section("HUD runs, `--keep-hud`", hud_run, summary))
    if clean:
        summary = curate(clean, clean_run, keep_hud=False)
        if not hud:
            body += throughput_section(summary, len(clean))
        sections.append(lengths_section("Clean runs (the same gameplay without HUD)", clean_run, summary))
    body += "## Segment lengths on the real captures (defaults: 30-120 s)\n\n" + "".join(sections)
    if hud:
        body += trajectory_section(hud_run)
    body += "Camera trajectories against ground truth: [trajectories.md](trajectories.md).\n"
    captures = []
    for corpus in args.corpus:
        with open(os.path.join(corpus, "summary.json")) as f:
            c = json.load(f)
        captures.append(
            f"{', '.join(c['games'])}: {c['clips']} clips of {c['duration_s']:g} s, {c['size']}, {c['fps']} fps"
        )
    command = "python benchmarks/long_horizon.py " + " ".join("--corpus CAPTURE_OUT" for _ in args.corpus)
    write_results_page(
        args.output,
        "Long-horizon segments and trajectories",
        command + " --work WORK",
        body,
        notes=[
            f"Corpus ({len(hud)} HUD and {len(clean)} clean clips), from `g2w capture`: " + "; ".join(captures) + ".",
            "GameVerse's ~400 frames/s per worker is its reported figure on unknown hardware.",
        ],
    )
    print(open(args.output).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
