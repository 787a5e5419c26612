"""Leave-one-game-out training of the segmenter with real captures, against the shipped weights.

For each real game G of a `g2w capture` corpus, a segmenter is trained by `g2w hud-segmenter
train`'s job (the shared harness, Ray Train) on freshly synthesized pairs (`g2w synthesize` over
procedural clean clips and over the OTHER games' real clean clips, one procedural asset library)
plus the other games' real HUD/clean pairs, and scored on G's real pairs at the videos' own size
(`g2w.segment.full_size`): plain, and with the shipped full-resolution refiner on top (copied
beside the new weights; it was trained for the shipped segmenter's logits). The shipped weights
are scored on the same pairs as the baseline. With `--final`, a model trains on every game and is
written to WORK/<setting>/all/model, a complete checkpoint folder. Each `--widths` setting repeats the
folds, so capacity is compared by held-out IoU and CPU fps at 720p (one thread).

The step budget is a wall-time budget, so the page says so: nothing here trains to convergence.
Folders under WORK are reused on a rerun (finished synthesis samples, decoded-sample cache,
finished training runs), so an interrupted run resumes.

Usage: python benchmarks/segmenter_loo.py CORPUS --work DIR --steps N [--init CKPT]
       [--widths 16,32,64,96 --widths 8,16,32,48] [--results docs/results/segmenter_loo.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections import defaultdict

from g2w.io.results_page import markdown_table, write_results_page
from g2w.jobs.options import SegmenterTrainOptions
from g2w.jobs.synthesize import run_synthesize
from g2w.jobs.train_segmenter import run_train_segmenter
from g2w.models.hud_segmenter import REFINER_CONFIG, REFINER_WEIGHTS, HudSegmenter
from g2w.segment.full_size import new_scores, score_pair, segmenter_fps
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter
from g2w.segment.provenance import TRAINING_NAME, read_training, write_training
from g2w.segment.task import sample_dirs, source_group
from g2w.video import probe


def real_pairs(corpus: str) -> dict[str, list[str]]:
    """The corpus's captured pairs by game (the `real:<game>` source group of each case)."""
    games: dict[str, list[str]] = defaultdict(list)
    for pair in sample_dirs([corpus]):
        if pair.endswith(".partial"):  # a capture still being written
            continue
        games[source_group(pair).split(":", 1)[1]].append(pair)
    return dict(sorted(games.items()))


def clean_clips(corpus: str, pairs: list[str], folder: str) -> str:
    """A folder of links to the corpus's clean clips of `pairs` (`g2w synthesize --clips` reads it)."""
    os.makedirs(folder, exist_ok=True)
    for pair in pairs:
        name = os.path.basename(pair) + ".mp4"
        link = os.path.join(folder, name)
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(os.path.join(corpus, "clean", name)), link)
    return folder


def synthesize(work: str, corpus: str, games: dict[str, list[str]], needed: list[str], args) -> dict[str, str]:
    """Synthesis outputs: "procedural" and one per `needed` real game (over that game's clean clips)."""
    from g2w.hud.bootstrap import bootstrap_library
    from g2w.sample_data import generate_samples

    procedural = os.path.join(work, "proc_clips")
    if not os.path.isdir(procedural):
        generate_samples(procedural, args.procedural_clips, args.seed, 5.0, baked_hud=False)
    library = os.path.join(work, "lib")
    if not os.path.isfile(os.path.join(library, "summary.json")):
        bootstrap_library(library, 8, args.seed)
    sources = {"procedural": (procedural, args.procedural_samples)}
    for game in needed:
        sources[game] = (clean_clips(corpus, games[game], os.path.join(work, "clean", game)), args.real_samples)
    out = {}
    for name, (clips, count) in sources.items():
        out[name] = os.path.join(work, "synth", name)
        run_synthesize(clips, library, out[name], count, args.seed)
    return out


def train(run: str, data: list[str], val: list[str], seen: list[str], widths: tuple[int, ...] | None, args) -> str:
    """One training run (skipped when its checkpoint is complete); returns its checkpoint folder:
    the new weights, the shipped refiner beside them, and the record of the real games it saw."""
    model = os.path.join(run, "model")
    if not os.path.isfile(os.path.join(model, TRAINING_NAME)):
        run_train_segmenter(
            SegmenterTrainOptions(
                data=data,
                val=val,
                output=run,
                steps=args.steps,
                eval_every=args.steps,
                batch_size=args.batch_size,
                crop=args.crop,
                seed=args.seed,
                init=args.init,
                widths=list(widths) if widths else None,
                cache=os.path.join(args.work, "cache"),
            )
        )
        for name in (REFINER_WEIGHTS, REFINER_CONFIG):
            shutil.copy(os.path.join(DEFAULT_CHECKPOINT, name), os.path.join(model, name))
        refiner = (read_training(DEFAULT_CHECKPOINT) or {}).get("refiner_real_pairs", [])
        write_training(model, real_pairs=seen, real_clean_clips=seen, refiner_real_pairs=refiner)
    return model


def held_out_iou(checkpoint: str, pairs: list[str], frames: int) -> dict:
    """Pooled full-size mask IoU (plain, refined) of `checkpoint` over `pairs`."""
    segmenter = Segmenter(checkpoint, threads=1, full_res=True)
    scores = new_scores()
    for pair in pairs:
        score_pair(segmenter, pair, frames, scores)
    return {kind: round(s.result()["mask_iou"], 3) for kind, s in scores["all"].items()}


def speed(checkpoint: str, clip: str) -> dict:
    """Parameters and one-thread CPU fps (plain, refined) of `checkpoint` on `clip`."""
    info = probe(clip)
    out = {"parameters": sum(p.numel() for p in HudSegmenter.from_pretrained(checkpoint).parameters())}
    for kind, full_res in (("plain", False), ("refined", True)):
        segmenter = Segmenter(checkpoint, threads=1, full_res=full_res)
        out[f"fps_{kind}"] = round(segmenter_fps(segmenter, clip, info.width, info.height), 1)
    return out


def parse_widths(text: str) -> tuple[int, ...]:
    return tuple(int(w) for w in text.split(","))


def _portable(arg: str) -> str:
    """A command-line argument as the results page shows it: absolute paths by their last part."""
    return os.path.basename(arg.rstrip("/")) if os.path.isabs(arg) else arg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", help="a g2w capture output (cases/ and clean/)")
    parser.add_argument("--work", required=True)
    parser.add_argument("--steps", type=int, required=True, help="training steps per run (set by wall time)")
    parser.add_argument("--batch-size", type=int, default=12)
    parser.add_argument("--crop", type=int, default=160)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--init", default=None, help="warm start every run from this segmenter folder")
    parser.add_argument(
        "--widths", type=parse_widths, action="append", default=None, help="a width setting, e.g. 16,32,64,96"
    )
    parser.add_argument("--procedural-clips", type=int, default=8)
    parser.add_argument("--procedural-samples", type=int, default=24)
    parser.add_argument("--real-samples", type=int, default=8, help="synthesized samples per real game")
    parser.add_argument("--frames", type=int, default=6, help="scored frames per held-out pair")
    parser.add_argument("--folds", default=None, help="comma-separated games to hold out (default: every game)")
    parser.add_argument(
        "--final", action="store_true", help="also train the all-games model (WORK/<setting>/all/model) for shipping"
    )
    parser.add_argument("--results", default=None)
    args = parser.parse_args()
    args.work = os.path.abspath(args.work)
    if args.init:
        args.init = os.path.abspath(args.init)
    settings = args.widths or [None]  # None: the default config (or --init's)
    games = real_pairs(args.corpus)
    folds = args.folds.split(",") if args.folds else list(games)
    needed = [g for g in games if args.final or set(folds) - {g}]  # trained on by some run
    synth = synthesize(args.work, args.corpus, games, needed, args)
    clip = games[folds[0]][0] + "/hud.mp4"
    result: dict = {"games": {g: len(games[g]) for g in folds}, "baseline": {}, "settings": {}}
    for game in folds:
        pairs = games[game]
        result["baseline"][game] = held_out_iou(DEFAULT_CHECKPOINT, pairs, args.frames)
        print("baseline", game, result["baseline"][game], flush=True)
    result["baseline_speed"] = speed(DEFAULT_CHECKPOINT, clip)
    for widths in settings:
        name = "default" if widths is None else "-".join(map(str, widths))
        entry: dict = {"widths": widths, "folds": {}}
        for game in folds:
            pairs, others = games[game], [g for g in games if g != game]
            data = [synth["procedural"], *(synth[g] for g in others), *(p for g in others for p in games[g])]
            model = train(os.path.join(args.work, name, f"without-{game}"), data, pairs, others, widths, args)
            entry["folds"][game] = held_out_iou(model, pairs, args.frames)
            print(name, "held out", game, entry["folds"][game], flush=True)
        if args.final:
            everything = [synth["procedural"], *(synth[g] for g in games), *(p for g in games for p in games[g])]
            val = [games[g][0] for g in games]  # in-sample: the harness needs a validation set
            entry["final"] = train(os.path.join(args.work, name, "all"), everything, val, list(games), widths, args)
        entry["speed"] = speed(model, clip)  # every run of a setting has the same network
        result["settings"][name] = entry
        print(name, "speed", entry["speed"], flush=True)
    with open(os.path.join(args.work, "loo.json"), "w") as f:
        json.dump(result, f, indent=2)
    page = render(result, args, len(sample_dirs([synth["procedural"]])), clip)
    print(page)
    if args.results:
        command = "python " + " ".join(["benchmarks/segmenter_loo.py", *map(_portable, sys.argv[1:])])
        write_results_page(args.results, "Segmenter v2: leave one game out, real captures in training", command, page)


def render(result: dict, args, procedural: int, clip: str) -> str:
    base_speed = result["baseline_speed"]
    rows = []
    for game, n in result["games"].items():
        b = result["baseline"][game]
        rows.append([game, n, "shipped (baseline)", b["plain"], b["refined"], base_speed["parameters"]])
        for name, entry in result["settings"].items():
            v = entry["folds"][game]
            rows.append(
                [game, n, f"v2 {name}, {game} held out", v["plain"], v["refined"], entry["speed"]["parameters"]]
            )
    speed_rows = [["shipped (baseline)", base_speed["parameters"], base_speed["fps_plain"], base_speed["fps_refined"]]]
    speed_rows += [
        [f"v2 {name}", e["speed"]["parameters"], e["speed"]["fps_plain"], e["speed"]["fps_refined"]]
        for name, e in result["settings"].items()
    ]
    init = f"warm-started from `{_portable(args.init)}`" if args.init else "from random weights"
    return "\n\n".join(
        [
            f"Each v2 run: {args.steps} steps of batch {args.batch_size}, {args.crop} px crops, seed {args.seed}, "
            f"{init}. **The step budget was set by wall time on a busy shared 2-core machine (torch at one "
            "thread), not by convergence.** Training data per fold: synthesized pairs over procedural clips "
            f"({procedural} samples) and over the other games' real clean clips ({args.real_samples} per game), "
            "plus the other games' real HUD/clean pairs; the held-out game's clips appear in no form.",
            "Mask IoU at the videos' own size, pooled over every real pair of the game "
            f"({args.frames} evenly spaced frames each). *plain*: the network's probability upsampled; "
            "*refined*: with the full-resolution refiner. v2 runs reuse the shipped refiner (trained with the "
            "shipped segmenter on its data, which included Freedoom's real pairs).",
            markdown_table(["game", "pairs", "model", "plain IoU", "refined IoU", "parameters"], rows),
            f"CPU speed at 720p, one thread, on `{os.path.basename(os.path.dirname(clip))}` "
            "(decode, statistics, network and full-size mask):",
            markdown_table(["model", "parameters", "fps plain", "fps refined"], speed_rows),
        ]
    )


if __name__ == "__main__":
    main()
