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
2. True and false cuts per minute, per detector, run and game, by the kind of event labelled by
   hand at each cut (benchmarks/data/long_capture_respawns.json): a capture replays continuous
   play, so it has no edit cut, and only a discontinuity inside the game (a respawn, a teleport)
   is a true cut; a fast turn, a weapon flash or a death view is a false one.
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
LABEL_MATCH_S = 0.2  # a cut this close to a labelled event is that event
LABELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "long_capture_respawns.json")
TRUE_KINDS = ("respawn", "teleport")  # discontinuities inside the game: a segment must break there


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


def load_labels(path: str) -> tuple[dict[str, list[tuple[float, str]]], set[str]]:
    """(clip id -> its labelled events as (time s, kind), the kinds that are true discontinuities).
    An event given as a bare time is a respawn, the file's first format."""
    with open(path) as f:
        data = json.load(f)
    clips = {
        clip: sorted(
            (float(e), "respawn") if isinstance(e, (int, float)) else (float(e["t"]), str(e["kind"])) for e in events
        )
        for clip, events in data["clips"].items()
    }
    return clips, set(data.get("true_kinds", TRUE_KINDS))


def classify_cuts(times: list[float], events: list[tuple[float, str]], true_kinds: set[str]) -> list[tuple[bool, str]]:
    """(true, kind) of every cut: the kind of the labelled event nearest it within LABEL_MATCH_S,
    `unlabelled` past that. A capture has no edit cut, so only a discontinuity inside the game (a
    respawn, a teleport) is a true cut; it takes one cut at most, the nearest, and the others near
    it (a flash a few frames off) are false `repeat`s."""
    out: list[tuple[bool, str]] = []
    claimed: dict[int, int] = {}  # true event -> the cut that takes it
    for k, t in enumerate(times):
        near = [(abs(t - e), i) for i, (e, _) in enumerate(events) if abs(t - e) <= LABEL_MATCH_S]
        if not near:
            out.append((False, "unlabelled"))
            continue
        i = min(near)[1]
        kind = events[i][1]
        out.append((kind in true_kinds, kind))
        if kind in true_kinds:
            if i in claimed and abs(times[claimed[i]] - events[i][0]) <= abs(t - events[i][0]):
                out[k] = (False, "repeat")
            else:
                if i in claimed:
                    out[claimed[i]] = (False, "repeat")
                claimed[i] = k
    return out


def per_game(run: str, labels: dict[str, list[tuple[float, str]]], true_kinds: set[str]) -> dict[str, dict]:
    """Per game: clips, minutes, true and false cuts (and by kind), the labelled true
    discontinuities, and the lengths of the kept segments."""
    out: dict[str, dict] = {}
    for src, (times, seconds) in cut_times(run).items():
        g = out.setdefault(game_name(src), _empty())
        events = labels.get(clip_name(src), [])
        verdicts = classify_cuts(times, events, true_kinds)
        g["clips"] += 1
        g["minutes"] += seconds / 60
        g["true_cuts"] += sum(true for true, _ in verdicts)
        g["false_cuts"] += sum(not true for true, _ in verdicts)
        g["discontinuities"] += sum(kind in true_kinds for _, kind in events)
        g["kinds"].update(kind for _, kind in verdicts)
    for s in pq.read_table(
        os.path.join(run, "manifest.parquet"), columns=["source", "status", "duration_s"]
    ).to_pylist():
        if s["status"] == "kept":
            out[game_name(s["source"])]["kept"].append(s["duration_s"])
    return out


def _empty() -> dict:
    return {
        "clips": 0,
        "minutes": 0.0,
        "true_cuts": 0,
        "false_cuts": 0,
        "discontinuities": 0,
        "kinds": Counter(),
        "kept": [],
    }


def total(games: dict[str, dict]) -> dict:
    """The games' figures summed, their kept lengths pooled."""
    out = _empty()
    for g in games.values():
        for key, value in g.items():
            out[key] = out[key] + value
    return out


def per_minute(kinds: Counter, minutes: float, true_kinds: set[str], true: bool) -> str:
    """`kind rate, ...` per minute for the true or the false kinds, most frequent first."""
    rates = [(n, k) for k, n in kinds.items() if (k in true_kinds) == true]
    return ", ".join(f"{k} {n / max(minutes, 1e-9):g}" for n, k in sorted(rates, key=lambda r: (-r[0], r[1]))) or "-"


def cuts_section(
    runs: list[tuple[str, str, str]], labels: dict[str, list[tuple[float, str]]], true_kinds: set[str]
) -> str:
    """True and false cuts per minute (by kind) and kept segments, per detector, run and game;
    then every cut's time with its label."""
    rows, listed = [], []
    for cuts, label, run in runs:
        games = per_game(run, labels, true_kinds)
        for game, g in sorted(games.items()) + [("all", total(games))]:
            minutes = max(g["minutes"], 1e-9)
            rows.append(
                [
                    cuts,
                    "HUD" if label == RUN_LABELS[True] else "clean",
                    game,
                    g["clips"],
                    round(g["minutes"], 2),
                    f"{g['true_cuts']} of {g['discontinuities']}",
                    per_minute(g["kinds"], minutes, true_kinds, True),
                    g["false_cuts"],
                    round(g["false_cuts"] / minutes, 2),
                    per_minute(g["kinds"], minutes, true_kinds, False),
                    *length_stats(g["kept"]),
                    round(sum(g["kept"]) / 60, 2),
                ]
            )
        for src, (times, _) in sorted(cut_times(run).items()):
            verdicts = classify_cuts(times, labels.get(clip_name(src), []), true_kinds)
            marked = ", ".join(f"{t:g} {kind}" for t, (_, kind) in zip(times, verdicts)) or "-"
            listed.append([cuts, "HUD" if label == RUN_LABELS[True] else "clean", clip_name(src), marked])
    truths = {
        clip: ", ".join(f"{t:g} {kind}" for t, kind in events if kind in true_kinds) or "none"
        for clip, events in sorted(labels.items())
    }
    return (
        "## True and false cuts and segments kept, by cut detector (defaults otherwise: 30-120 s)\n\n"
        + markdown_table(
            [
                "cuts",
                "run",
                "game",
                "clips",
                "minutes",
                "true cuts (of labelled)",
                "true cuts/min by kind",
                "false cuts",
                "false cuts/min",
                "false cuts/min by kind",
                "segments kept",
                "min s",
                "median s",
                "max s",
                "kept minutes",
            ],
            rows,
        )
        + "\n\nEvery cut reported was labelled by hand from the frames around it; a cut takes the label "
        + f"nearest it within {LABEL_MATCH_S:g} s. True kinds: {', '.join(sorted(true_kinds))}; "
        + "labelled true discontinuities: "
        + "; ".join(f"{clip}: {t}" for clip, t in truths.items())
        + ". A second cut at one true discontinuity is a false `repeat`; `unlabelled` is a cut no label is near.\n\n"
        + "Cuts reported (s, label):\n\n"
        + markdown_table(["cuts", "run", "clip", "cuts"], listed)
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
        "--labels",
        "--respawns",
        default=LABELS,
        help="JSON: clips -> clip id -> the events at its cuts (time s, kind), labelled by hand",
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
    body += cuts_section(runs, *load_labels(args.labels))
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
            "A capture replays continuous play: it has no edit cut, so a cut reported in it is true only at a "
            "discontinuity inside the game, a respawn or a teleport (a cut by decision, docs/long_horizon.md).",
            "GameVerse's ~400 frames/s per worker is its reported figure on unknown hardware.",
        ],
    )
    print(open(args.output).read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
