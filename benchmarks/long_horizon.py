"""Long-horizon measurements on real captures, written to docs/results/long_horizon.md.

Input: `g2w capture` output folders of minute-scale clips (`--duration-s 60` or more). Their HUD
runs (`cases/*/hud.mp4`) are curated as docs/long_horizon.md documents for footage with a HUD,
`g2w curate CLIPS --output RUN --mode long --keep-hud` with every other option at its default, and
their clean runs (`clean/*.mp4`, the same gameplay without HUD) with `g2w curate CLIPS --output RUN
--mode long`, so a HUD decision and a decision about the footage itself can be told apart. Each
cut detector named by `--cuts` (default: the shipped one) curates both; then `g2w trajectory RUN`
on the first detector's HUD run.

1. Segmentation throughput: source frames per second of the analysis stage per CPU of the local
   cluster, beside GameVerse's reported ~400 frames/s per worker (its hardware unknown; a ratio of
   reported figures, not a side-by-side run).
2. False cuts per minute, per detector, run and game: a capture replays continuous play, so every
   cut reported in it is false (the levels of these demos do not change inside a clip).
3. Segment lengths at the default 30-120 s bounds per detector, run and game; for the first
   detector the segments with the reasons of the rejected stretches, and per source the window
   verdicts the segments were built from, in time order.
4. Trajectory verdicts of the kept segments, with their in-game jumps (the breaks: respawns,
   teleports).
Trajectory accuracy is measured by benchmarks/trajectories.py.

    python benchmarks/long_horizon.py --corpus CAPTURE_OUT [--corpus CAPTURE_OUT ...] --work WORK
        [--cuts rules --cuts cascade]

WORK's runs (`WORK/<detector>_hud`, `WORK/<detector>_clean`) are removed first, so every figure is
measured rather than resumed.
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

from g2w.capture import game_of_clip
from g2w.cli import main as g2w
from g2w.curate.cut_modes import MODES
from g2w.io.results_page import markdown_table, write_results_page

GAMEVERSE_FPS_PER_WORKER = 400.0
RUN_LABELS = {True: "HUD runs, `--keep-hud`", False: "Clean runs (the same gameplay without HUD)"}
SELECTION_ONLY = {"not_sampled", "near_duplicate"}  # verdicts that never break a segment
RESPAWN_MATCH_S = 0.2  # a cut this close to a labelled respawn is at it
RESPAWNS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "long_capture_respawns.json")


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


def curate(clips: list[str], run: str, keep_hud: bool, cuts: str) -> dict:
    shutil.rmtree(run, ignore_errors=True)
    argv = ["curate", *clips, "--output", run, "--mode", "long", "--cuts", cuts, *(["--keep-hud"] if keep_hud else [])]
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


def game_name(source: str) -> str:
    return game_of_clip(clip_name(source))


def cut_times(run: str) -> dict[str, tuple[list[float], float]]:
    """Per source, (the times of the cuts reported, seconds analysed): a cut is counted once, at
    its time, whichever windows list it."""
    rows = pq.read_table(os.path.join(run, "windows.parquet"), columns=["source", "end_s", "cut_times"]).to_pylist()
    cuts: dict[str, set] = {}
    seconds: dict[str, float] = {}
    for r in rows:
        cuts.setdefault(r["source"], set()).update(r["cut_times"] or [])
        seconds[r["source"]] = max(seconds.get(r["source"], 0.0), float(r["end_s"]))
    return {src: (sorted(cuts[src]), seconds[src]) for src in cuts}


def load_respawns(path: str) -> dict[str, list[float]]:
    """clip id -> the times (s) of the respawns labelled by hand in it."""
    with open(path) as f:
        return {clip: [float(t) for t in times] for clip, times in json.load(f)["clips"].items()}


def split_cuts(times: list[float], respawns: list[float]) -> tuple[int, int]:
    """(cuts at a labelled respawn, false cuts): a capture has no edit cut, and a respawn is a
    cut by decision, so every other cut reported is false; a respawn takes one cut at most, the
    others near it (a flash a few frames off) are false."""
    at = sum(any(abs(t - r) <= RESPAWN_MATCH_S for t in times) for r in respawns)
    return at, len(times) - at


def per_game(run: str, respawns: dict[str, list[float]]) -> dict[str, dict]:
    """Per game: clips, minutes, cuts at respawns, false cuts, and the lengths of the kept segments."""
    out: dict[str, dict] = {}
    for src, (times, seconds) in cut_times(run).items():
        g = out.setdefault(game_name(src), {"clips": 0, "minutes": 0.0, "respawn_cuts": 0, "false_cuts": 0, "kept": []})
        at, false = split_cuts(times, respawns.get(clip_name(src), []))
        g["clips"] += 1
        g["minutes"] += seconds / 60
        g["respawn_cuts"] += at
        g["false_cuts"] += false
    for s in pq.read_table(
        os.path.join(run, "manifest.parquet"), columns=["source", "status", "duration_s"]
    ).to_pylist():
        if s["status"] == "kept":
            out[game_name(s["source"])]["kept"].append(s["duration_s"])
    return out


def total(games: dict[str, dict]) -> dict:
    """The games' figures summed, their kept lengths pooled."""
    return {
        key: [d for g in games.values() for d in g[key]] if key == "kept" else sum(g[key] for g in games.values())
        for key in ("clips", "minutes", "respawn_cuts", "false_cuts", "kept")
    }


def cuts_section(runs: list[tuple[str, str, str]], respawns: dict[str, list[float]]) -> str:
    """False cuts per minute and kept segments, per detector, run and game; then every cut's time."""
    rows, listed = [], []
    for cuts, label, run in runs:
        games = per_game(run, respawns)
        for game, g in sorted(games.items()) + [("all", total(games))]:
            rows.append(
                [
                    cuts,
                    "HUD" if label == RUN_LABELS[True] else "clean",
                    game,
                    g["clips"],
                    round(g["minutes"], 2),
                    g["respawn_cuts"],
                    g["false_cuts"],
                    round(g["false_cuts"] / max(g["minutes"], 1e-9), 2),
                    *length_stats(g["kept"]),
                    round(sum(g["kept"]) / 60, 2),
                ]
            )
        for src, (times, _) in sorted(cut_times(run).items()):
            listed.append([cuts, "HUD" if label == RUN_LABELS[True] else "clean", clip_name(src), _times(times)])
    labelled = {clip: _times(times) for clip, times in sorted(respawns.items())}
    return (
        "## False cuts and segments kept, by cut detector (defaults otherwise: 30-120 s)\n\n"
        + markdown_table(
            [
                "cuts",
                "run",
                "game",
                "clips",
                "minutes",
                "cuts at a respawn",
                "false cuts",
                "false cuts/min",
                "segments kept",
                "min s",
                "median s",
                "max s",
                "kept minutes",
            ],
            rows,
        )
        + f"\n\nA cut within {RESPAWN_MATCH_S:g} s of a respawn labelled by hand is at that respawn; "
        + "labelled respawns (s): "
        + ("; ".join(f"{clip}: {t}" for clip, t in labelled.items()) or "none")
        + ".\n\nCuts reported (s):\n\n"
        + markdown_table(["cuts", "run", "clip", "cut times s"], listed)
        + "\n\n"
    )


def _times(times: list[float]) -> str:
    return ", ".join(f"{t:g}" for t in times) or "-"


def capture_note(corpus: str) -> str:
    """What a capture folder holds, from its cases' own meta.json: game, clips, length, size, rate."""
    metas = []
    for path in sorted(glob.glob(os.path.join(corpus, "cases", "*", "meta.json"))):
        with open(path) as f:
            metas.append(json.load(f))
    kinds = Counter(
        (m["game"], round(m["frames"] / m["fps"], 1), f"{m['width']}x{m['height']}", m["fps"]) for m in metas
    )
    return "; ".join(
        f"{game}: {n} clips of {s:g} s, {size}, {fps} fps" for (game, s, size, fps), n in sorted(kinds.items())
    )


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
        + f"\n\nThe first run's analysis stage; local cluster: {cpus:g} CPUs.\n\n"
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
            ", ".join(f"{t:g}" for t in r["in_game_jumps"] or []) or "-",
            r["jitter_deg_s"],
            r["drift_deg_s"],
        ]
        for r in dataset
        if r["status"] == "kept"
    ]
    return (
        "## Trajectories of the kept segments (HUD run, `g2w trajectory RUN`, FOV estimated, HUD masked)\n\n"
        + markdown_table(
            [
                "clip",
                "start s",
                "length s",
                "HUD",
                "verdict",
                "reason",
                "jumps",
                "in-game jumps at s",
                "jitter deg/s",
                "drift deg/s",
            ],
            rows,
        )
        + "\n\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", required=True, action="append", help="a g2w capture output folder (cases/, clean/); repeatable"
    )
    parser.add_argument("--work", required=True)
    parser.add_argument(
        "--cuts", action="append", choices=MODES, help="cut detector to curate with; repeatable (default: rules)"
    )
    parser.add_argument(
        "--respawns", default=RESPAWNS, help="JSON: clips -> clip id -> respawn times (s), labelled by hand"
    )
    parser.add_argument("--output", default="docs/results/long_horizon.md")
    args = parser.parse_args()
    detectors = args.cuts or ["rules"]
    hud, clean = clips_of(args.corpus)
    if not hud and not clean:
        raise SystemExit(f"no captured clips in {args.corpus}")
    runs, summaries = [], {}
    for cuts in detectors:
        for label, clips, keep_hud in ((RUN_LABELS[True], hud, True), (RUN_LABELS[False], clean, False)):
            if clips:
                run = os.path.join(args.work, f"{cuts}_{'hud' if keep_hud else 'clean'}")
                summaries[run] = curate(clips, run, keep_hud, cuts)
                runs.append((cuts, label, run))
    first = [r for r in runs if r[0] == detectors[0]]
    body = throughput_section(summaries[first[0][2]], len(hud or clean))
    body += cuts_section(runs, load_respawns(args.respawns))
    body += f"## Segments of the real captures, `--cuts {detectors[0]}` (defaults: 30-120 s)\n\n"
    body += "".join(lengths_section(label, run, summaries[run]) for _, label, run in first)
    if hud:
        body += trajectory_section(first[0][2])
    body += "Camera trajectories against ground truth: [trajectories.md](trajectories.md).\n"
    captures = [capture_note(corpus) for corpus in args.corpus]
    command = "python benchmarks/long_horizon.py " + " ".join("--corpus CAPTURE_OUT" for _ in args.corpus)
    command += "".join(f" --cuts {c}" for c in args.cuts or [])
    write_results_page(
        args.output,
        "Long-horizon segments and trajectories",
        command + " --work WORK",
        body,
        notes=[
            f"Corpus ({len(hud)} HUD and {len(clean)} clean clips), from `g2w capture`: " + "; ".join(captures) + ".",
            "A capture replays continuous play: it has no edit cut, so a cut reported in it is at a respawn "
            "(a cut by decision, docs/long_horizon.md) or false.",
            "GameVerse's ~400 frames/s per worker is its reported figure on unknown hardware.",
        ],
    )
    print(open(args.output).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
