"""How good a cue the OCR text proposals are, per game, on real HUD/clean pairs.

For each pair (a captured case with hud.mp4, mask.mkv and clean.mp4; a corpus folder names all
its cases) and each detector size (`--long-sides`), `g2w.segment.text_proposals` runs on every
`--every`-th frame of the HUD video and carries its boxes to the frames between, exactly as the
segmenter would get them; every frame's map (at the video's own size, a pixel proposed where
the map is above 0) is scored against the lossless mask:

- HUD covered: the share of true HUD pixels inside a proposal;
- proposals on HUD: the share of the proposals' area that is HUD;
- the same two on the detector's own frames only (`run frames`), without carrying;
- clean frames covered: the same schedule on the HUD-free clean video, the share of the frame
  proposed (every proposal there is a false one);
- ms per run: the median time of one detector run on a full-size frame (scaling included), with
  `--threads` onnxruntime threads; ms per frame: all runs' time over all frames.

Pixel counts pool over the frames and pairs of a game. `--results` writes the Markdown page.

Usage: python benchmarks/text_proposals.py PAIRS... [--every 30] [--long-sides 640,960]
    [--threads 1] [--results docs/results/text_proposals.md] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from collections import defaultdict

import numpy as np

from g2w.io.results_page import markdown_table, write_results_page
from g2w.segment.task import sample_dirs, source_group
from g2w.segment.text_proposals import TextDetector, TextProposals
from g2w.video import iter_frames, iter_masks, probe


class Tally:
    def __init__(self) -> None:
        self.counts: dict[str, int] = defaultdict(int)
        self.run_ms: list[float] = []

    def add(self, key: str, value: int) -> None:
        self.counts[key] += int(value)

    def ratio(self, num: str, den: str) -> float:
        return self.counts[num] / self.counts[den] if self.counts[den] else float("nan")


def _timed_proposals(video: str, detector: TextDetector, every: int, tally: Tally):
    """(frame index, full-size proposal mask, ran the detector here) for every frame of `video`."""
    info = probe(video)
    proposals = TextProposals((info.width, info.height), every, detector)
    for t, frame in enumerate(iter_frames(video)):
        due = proposals.due(t)
        t0 = time.perf_counter()
        prob = proposals.step(t, frame.rgb if due else None)
        if due:
            tally.run_ms.append((time.perf_counter() - t0) * 1000)
        tally.add("frames", 1)
        yield t, prob > 0, due


def score_pair(pair: str, detector: TextDetector, every: int, tally: Tally) -> None:
    masks = iter(iter_masks(os.path.join(pair, "mask.mkv")))
    for _, proposed, due in _timed_proposals(os.path.join(pair, "hud.mp4"), detector, every, tally):
        truth = next(masks, None)
        if truth is None:
            break
        hud = truth >= 128
        for prefix in ("", "run_") if due else ("",):
            tally.add(prefix + "hud", hud.sum())
            tally.add(prefix + "proposed", proposed.sum())
            tally.add(prefix + "hit", (proposed & hud).sum())
    clean = os.path.join(pair, "clean.mp4")
    if os.path.isfile(clean):
        for _, proposed, _ in _timed_proposals(clean, detector, every, tally):
            tally.add("clean_px", proposed.size)
            tally.add("clean_proposed", proposed.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="+")
    parser.add_argument("--every", type=int, default=30)
    parser.add_argument("--long-sides", default="640,960")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--results", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    pairs = [p for p in sample_dirs(args.pairs) if source_group(p).startswith("real:")]
    if not pairs:
        parser.error("no captured pairs (cases with meta.json) under the given paths")
    sizes = sorted([int(s) for s in args.long_sides.split(",")])
    tallies: dict[tuple[int, str], Tally] = defaultdict(Tally)
    for long_side in sizes:
        detector = TextDetector(long_side=long_side, threads=args.threads)
        for pair in pairs:
            game = source_group(pair).removeprefix("real:")
            tally = Tally()
            score_pair(pair, detector, args.every, tally)
            for key in ((long_side, game), (long_side, "all")):
                for k, v in tally.counts.items():
                    tallies[key].add(k, v)
                tallies[key].run_ms += tally.run_ms
            print(f"{long_side} {os.path.basename(pair)}: {tally.ratio('hit', 'hud'):.3f} covered", file=sys.stderr)
    header = [
        "game",
        "detector long side",
        "HUD covered",
        "proposals on HUD",
        "HUD covered (run frames)",
        "proposals on HUD (run frames)",
        "clean frames covered",
        "ms per run",
        f"ms per frame (every {args.every})",
    ]
    rows, table = [], {}
    games = sorted({g for _, g in tallies}, key=lambda g: (g == "all", g))
    for game in games:
        for long_side in sizes:
            t = tallies[(long_side, game)]
            row = {
                "hud_covered": t.ratio("hit", "hud"),
                "proposals_on_hud": t.ratio("hit", "proposed"),
                "hud_covered_run_frames": t.ratio("run_hit", "run_hud"),
                "proposals_on_hud_run_frames": t.ratio("run_hit", "run_proposed"),
                "clean_covered": t.ratio("clean_proposed", "clean_px"),
                "ms_per_run": float(np.median(t.run_ms)) if t.run_ms else float("nan"),
                "ms_per_frame": sum(t.run_ms) / t.counts["frames"] if t.counts["frames"] else float("nan"),
            }
            table[f"{game}@{long_side}"] = row
            rows.append([game, long_side, *(round(v, 3) if i < 5 else round(v, 1) for i, v in enumerate(row.values()))])
    body = markdown_table(header, rows)
    print(body)
    command = "python benchmarks/text_proposals.py " + " ".join(
        shlex.quote(a if not os.path.isabs(a) else os.path.basename(a.rstrip("/"))) for a in sys.argv[1:]
    )
    n_by_game = defaultdict(int)
    for p in pairs:
        n_by_game[source_group(p).removeprefix("real:")] += 1
    notes = [
        "Pairs per game: "
        + ", ".join(f"{g} {n}" for g, n in sorted(n_by_game.items()))
        + "; every frame of each clip scored.",
        f"The detector runs on every {args.every}th frame and its boxes are carried to the frames between; "
        "'run frames' scores only the frames it ran on.",
        f"Times: {args.threads} onnxruntime thread(s) on a machine shared with other jobs, so they are upper bounds.",
        "Clean frames are the HUD-free captures of the same play: every proposal there is a false one.",
    ]
    if args.results:
        write_results_page(
            args.results, "Text proposals: the OCR detector as a HUD cue, per game", command, body, notes
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "every": args.every, "scores": table}, f, indent=1)


if __name__ == "__main__":
    main()
