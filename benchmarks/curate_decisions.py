"""Train the curation accept/reject model and judge it against the hand-set rules, by game.

Builds the labelled windows (`g2w.curate.decision.dataset`: real clean captures, their
synthetic defects and relit copies, the procedural samples), reports leave-one-game-out rates for the learned
model and for the rules on the same windows, then trains on everything and writes the shipped
weights, their card and the results page. The measured windows are cached in the work folder,
so a rerun with the same corpus refits without re-measuring and writes the same weights.

    python benchmarks/curate_decisions.py CLEAN_DIR... --workdir W \
        --weights g2w/weights/curate_decisions.json --results docs/results/curate_decisions.md
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import sys
from collections import Counter

from g2w.capture import game_of_clip
from g2w.curate.decision.dataset import PROCEDURAL, clip_rows, relit_rows, sample_rows
from g2w.curate.decision.model import ACCEPT, CLASSES
from g2w.curate.decision.perturb import DEFECTS, LABELS, RELIT
from g2w.curate.decision.train import fit, leave_one_game_out

SAMPLES = 6  # procedural sample videos of 20 s


def load_rows(dirs: list[str], workdir: str, rebuild: bool) -> list[dict]:
    """Every labelled window; each clip's (and the samples') measurements cached in `workdir`,
    in a folder named after the defects painted, so a changed list is measured afresh."""
    painted = hashlib.sha256(json.dumps([DEFECTS, RELIT, LABELS, SAMPLES]).encode()).hexdigest()[:8]
    cache = os.path.join(workdir, f"windows-{painted}")
    os.makedirs(cache, exist_ok=True)

    def cached(name: str, measure) -> list[dict]:
        path = os.path.join(cache, name + ".json")
        if rebuild or not os.path.exists(path):
            with open(path + ".partial", "w") as f:
                json.dump(measure(), f)
            os.replace(path + ".partial", path)
        with open(path) as f:
            return json.load(f)

    rows = []
    for d in dirs:
        for clip in sorted(glob.glob(os.path.join(d, "*.mp4"))):
            name = os.path.splitext(os.path.basename(clip))[0]
            game, perturbed = game_of_clip(clip), os.path.join(workdir, "perturbed")
            rows += cached(name, lambda clip=clip, game=game, out=perturbed: clip_rows(clip, game, out))
            rows += cached(name + "-relit", lambda clip=clip, game=game, out=perturbed: relit_rows(clip, game, out))
    return rows + cached("samples", lambda: sample_rows(os.path.join(workdir, "samples"), SAMPLES))


def _cell(r: tuple[int, int, int] | None, exact: bool = False) -> str:
    if r is None:
        return "-"
    n, right, reason = r
    return f"{right}/{n} ({100 * right / n:.0f} %)" + (f", reason {reason}" if exact else "")


def table(report: dict) -> list[str]:
    head = ["held-out game", "decisions", "clean kept", *[f"{c} caught" for c in CLASSES[1:]]]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for game, by in report.items():
        for mode in ("learned", "rules"):
            r = by[mode]
            cells = [_cell(r.get(ACCEPT)), *[_cell(r.get(c), exact=True) for c in CLASSES[1:]]]
            lines.append(f"| {game} | {mode} | " + " | ".join(cells) + " |")
    return lines


def totals(report: dict, mode: str) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {}
    for by in report.values():
        for c, (n, right, _) in by[mode].items():
            t = out.setdefault(c, [0, 0])
            t[0], t[1] = t[0] + n, t[1] + right
    return {c: (n, right) for c, (n, right) in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clean", nargs="+", help="folders of clean real captures (g2w capture's clean/)")
    ap.add_argument("--workdir", required=True, help="perturbed clips, samples and the measured-window cache")
    ap.add_argument("--rebuild", action="store_true", help="re-measure even if the cache exists")
    ap.add_argument("--weights", help="write the model trained on every window here (JSON)")
    ap.add_argument("--card", help="write the model card here (default: beside --weights, .md)")
    ap.add_argument("--results", help="write the results page here")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    rows = load_rows(args.clean, args.workdir, args.rebuild)
    games = sorted({r["game"] for r in rows} - {PROCEDURAL}) + [PROCEDURAL]
    report = leave_one_game_out(rows, games)
    real = {g: by for g, by in report.items() if g != PROCEDURAL}
    summary = {m: totals(real, m) for m in ("learned", "rules")}
    command = "python benchmarks/curate_decisions.py " + " ".join(
        a if not os.path.isabs(a) else os.path.basename(a.rstrip("/")) for a in sys.argv[1:]
    )
    counts = Counter((r["game"], r["label"]) for r in rows)
    data_lines = ["| game | " + " | ".join(CLASSES) + " |", "|" + " --- |" * (len(CLASSES) + 1)]
    data_lines += [f"| {g} | " + " | ".join(str(counts[(g, c)]) for c in CLASSES) + " |" for g in games]
    lines = table(report)
    print("\n".join(data_lines + [""] + lines))
    print("real games, all held out in turn:", json.dumps(summary))
    model = fit(rows)
    if args.weights:
        extra = {"trained_on": {f"{g}/{c}": n for (g, c), n in sorted(counts.items())}, "command": command}
        with open(args.weights, "w") as f:
            json.dump(model.to_json(extra), f, indent=1)
            f.write("\n")
        card = args.card or os.path.splitext(args.weights)[0] + ".md"
        with open(card, "w") as f:
            f.write(_card(command, data_lines, lines))
    if args.results:
        with open(args.results, "w") as f:
            f.write(_results(command, data_lines, lines, summary))


_LIMITS = """## Limits

- Decides only `too_dark`, `frozen`, `blurry` and `shaky`; cuts, borders, brightness, UI and the
  GameVerse limits stay rules.
- The defects on real footage are synthetic (jitter as a shifted crop of a zoomed frame, Gaussian
  blur, a gain or a fade to black, a held frame); real camera shake and motion blur may differ.
- Real clean windows come from a few captured games only; their labels are `accept` by
  construction (a dark corridor of real play is accepted on purpose).
- Leave-one-game-out keeps the procedural samples in every training fold.
- Flat-shaded clean windows (texture median-filtered away, edges kept) measure as soft as
  blurred ones (sharpness 6-37): held out by game, the model calls most of them `blurry`, so it
  keeps fewer clean windows than the rules do. One sharpness number cannot tell a plain picture
  from a soft one; a cue that can is what it needs before it can be the default.
"""


def _card(command: str, data: list[str], lines: list[str]) -> str:
    return "\n".join(
        [
            "# curate_decisions: the curation accept/reject model",
            "",
            "Multinomial logistic regression (scikit-learn, class-balanced, standardized cues; sharpness",
            "and motion on a log scale) over the window cues `g2w curate` measures. Scored with numpy",
            "from this JSON (`g2w/curate/decision/model.py`); used by `g2w curate --decisions learned`.",
            "",
            "## Data (windows)",
            "",
            *data,
            "",
            "## Trained by",
            "",
            f"`{command}`",
            "",
            "## Leave-one-game-out (trained without the held-out game)",
            "",
            *lines,
            "",
            _LIMITS,
        ]
    )


def _results(command: str, data: list[str], lines: list[str], summary: dict) -> str:
    def pct(m: str, c: str) -> str:
        n, right = summary[m].get(c, (0, 0))
        return f"{right}/{n}" + (f" ({100 * right / n:.1f} %)" if n else "")

    totals_lines = ["| decisions | clean kept | " + " | ".join(f"{c} caught" for c in CLASSES[1:]) + " |"]
    totals_lines.append("|" + " --- |" * len(CLASSES) + " --- |")
    for m in ("learned", "rules"):
        totals_lines.append(f"| {m} | {pct(m, ACCEPT)} | " + " | ".join(pct(m, c) for c in CLASSES[1:]) + " |")
    return "\n".join(
        [
            "# Curation decisions: learned model against the hand-set rules, by held-out game",
            "",
            f"Written by `{command}`.",
            "",
            "Each game is held out in turn (the procedural samples too): the model is trained on the",
            "other groups (their clean windows, synthetic defects and relit copies) and judged on the",
            "held-out group's clean windows (kept?) and defect windows (caught? `reason` counts the",
            "exact reason). The rules are the default `QualityThresholds` on the same windows.",
            "",
            "## Windows",
            "",
            *data,
            "",
            "## Real games, summed over held-out folds",
            "",
            *totals_lines,
            "",
            "## Per held-out game",
            "",
            *lines,
            "",
        ]
    )


if __name__ == "__main__":
    main()
