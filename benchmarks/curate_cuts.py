"""Cut detectors side by side: `rules`, `cascade` and `transnetv2` (`g2w curate --cuts`), with
PySceneDetect's ContentDetector as the field's common peer, on the same clips.

Three sets, each reported by game:
- procedural first-person walkthroughs, continuous and with hard cuts between rooms (known times);
- real captures as they are (`g2w capture` output, `<game>/clean/*.mp4`): continuous play, so any
  cut found is a false one and a clip with none is a clean window kept;
- real splices: the first half of one capture joined to the second half of another, one known cut.

A cut counts as found when a detector reports one within `TOLERANCE_S` of the true time. CPU cost
is the front end's CPU seconds (the whole analysis pass, cuts included, as `g2w curate` runs it on
one thread) over `ffmpeg -f null`'s for the same files, so it reads like `curate_frontend.py`.

Usage: python benchmarks/curate_cuts.py --corpus CAPTURE_OUT [--work DIR]
       [--results docs/results/curate_cuts.md]
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import subprocess
from collections import defaultdict

import numpy as np
import torch

from g2w.capture import game_of_clip
from g2w.curate.analyze import AnalyzeWindows
from g2w.curate.cut_modes import MODES
from g2w.io.results_page import markdown_table, write_results_page
from g2w.sample_data.walkthrough import WalkSpec, write_walkthrough
from g2w.video import FrameReader, VideoWriter
from g2w.video.sources import probe_row

TOLERANCE_S = 0.1


def _cpu(children: bool = False) -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def procedural(work: str) -> list[dict]:
    out = []
    for seed in range(3):
        cont = WalkSpec(seed=seed, shot_s=(5.0,))
        cuts = WalkSpec(seed=100 + seed, shot_s=(2.0, 1.5, 1.5), transitions=("cut", "cut"))
        out.append({"set": "procedural", "game": "walkthrough", "path": write_walkthrough(cont, work), "cuts": []})
        out.append(
            {"set": "procedural", "game": "walkthrough", "path": write_walkthrough(cuts, work), "cuts": [2.0, 3.5]}
        )
    return out


def captured(corpus: str) -> list[dict]:
    """The clean clips of a `g2w capture` folder (`clean/*.mp4`, or one such folder per game)."""
    paths = sorted(
        glob.glob(os.path.join(corpus, "clean", "*.mp4")) + glob.glob(os.path.join(corpus, "*", "clean", "*.mp4"))
    )
    return [{"set": "real", "game": game_of_clip(p), "path": p, "cuts": []} for p in paths]


def spliced(clips: list[dict], work: str) -> list[dict]:
    """Per game, each capture's first half joined to the next capture's second half."""
    by_game = defaultdict(list)
    for c in clips:
        by_game[c["game"]].append(c["path"])
    out = []
    for game, paths in sorted(by_game.items()):
        if len(paths) < 2:
            continue
        for a, b in zip(paths, paths[1:] + paths[:1]):
            ra, rb = FrameReader(a), FrameReader(b)
            n = min(len(ra), len(rb))
            half = n // 2
            path = os.path.join(work, f"splice_{os.path.basename(a)[:-4]}__{os.path.basename(b)}")
            frames = np.concatenate([ra.read(list(range(half))), rb.read(list(range(half, n)))])
            h, w = frames.shape[1:3]
            with VideoWriter(path, w, h, ra.fps, crf=18, preset="ultrafast") as writer:
                for f in frames:
                    writer.write(f)
            out.append({"set": "real spliced", "game": game, "path": path, "cuts": [half / ra.fps]})
    return out


def detect(mode: str, clip: dict) -> list[float]:
    if mode == "pyscenedetect":
        from scenedetect import ContentDetector
        from scenedetect import detect as sd_detect

        return [start.get_seconds() for start, _ in sd_detect(clip["path"], ContentDetector())[1:]]
    step = AnalyzeWindows(window_s=_duration(clip["path"]), ui_detector="static-edges", cuts=mode)
    rows = step.analyze_source(probe_row(clip["path"]))
    return sorted(t for r in rows if r.get("cut_times") for t in r["cut_times"])


def _duration(path: str) -> float:
    reader = FrameReader(path)
    return len(reader) / reader.fps


def score(found: list[float], truth: list[float]) -> tuple[int, int, int]:
    """(true cuts found, false cuts, true cuts)."""
    hit = sum(any(abs(f - t) <= TOLERANCE_S for f in found) for t in truth)
    false = sum(not any(abs(f - t) <= TOLERANCE_S for t in truth) for f in found)
    return hit, false, len(truth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--corpus", required=True, help="a g2w capture output folder (clean/*.mp4, or <game>/clean/*.mp4)"
    )
    parser.add_argument("--work", default="bench_cuts", help="scratch folder for the generated clips")
    parser.add_argument("--results", default=None, help="write the Markdown page here")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    torch.set_num_threads(1)  # as in the job: one CPU per analysis task
    real = captured(args.corpus)
    clips = procedural(args.work) + real + spliced(real, args.work)
    print(f"{len(clips)} clips ({len(real)} real captures)", flush=True)

    start = _cpu(children=True)
    for c in clips:
        subprocess.run(["ffmpeg", "-v", "error", "-i", c["path"], "-f", "null", "-"], check=True)
    peer = _cpu(children=True) - start

    modes = [*MODES, "pyscenedetect"]
    cpu, tally = {}, defaultdict(lambda: np.zeros(5, int))  # hit, false, truth, clean kept, clean clips
    for mode in modes:
        start = _cpu()
        for c in clips:
            found = detect(mode, c)
            hit, false, truth = score(found, c["cuts"])
            clean = not c["cuts"]
            tally[(mode, c["set"], c["game"])] += [hit, false, truth, int(clean and not found), int(clean)]
        cpu[mode] = _cpu() - start
        print(f"{mode}: {cpu[mode]:.1f} CPU s ({cpu[mode] / peer:.2f}x ffmpeg -f null)", flush=True)

    rows = []
    for (mode, kind, game), (hit, false, truth, kept, clean) in sorted(tally.items(), key=lambda kv: kv[0][1:]):
        rows.append(
            [
                kind,
                game,
                mode,
                f"{hit}/{truth}" if truth else "-",
                f"{hit / (hit + false):.2f}" if hit + false else "-",
                f"{kept}/{clean}" if clean else "-",
            ]
        )
    body = "\n\n".join(
        [
            "## Cuts found, precision and clean clips kept, by set and game\n\n"
            + markdown_table(["set", "game", "detector", "cuts found", "precision", "clean clips kept"], rows),
            "## CPU cost (one thread)\n\n"
            + markdown_table(
                ["detector", "CPU s", "x ffmpeg -f null"],
                [[m, round(cpu[m], 1), round(cpu[m] / peer, 2)] for m in modes],
            )
            + f"\n\n`ffmpeg -f null` over the same {len(clips)} files: {peer:.1f} CPU s. For `rules`, `cascade` and"
            " `transnetv2` the figure is the whole analysis pass (quality and UI cues included); for PySceneDetect,"
            " its own decode and detector.",
        ]
    )
    print(body)
    if args.results:
        command = f"python benchmarks/curate_cuts.py --corpus {args.corpus} --results {args.results}"
        notes = [
            f"A cut is found when reported within {TOLERANCE_S} s of the true time; precision is over all cuts reported.",
            "Real captures are continuous play: every cut reported there is false.",
            f"Small corpus: {len(real)} real clips of {len({c['game'] for c in real})} games, none held out for tuning.",
        ]
        write_results_page(args.results, "Cut detectors on procedural and real footage", command, body, notes)


if __name__ == "__main__":
    main()
