"""What each mask rule is worth: the removal mask's IoU per game for every subset of the rules.

The candidate rules are `REMOVAL_RULES` plus any given with `--rules` (a longer list to judge).
The segmenter and its full-resolution step run once per case; every subset of the candidates,
in their order, is then applied to the same refined masks (`g2w.segment.mask_rules`), so the
columns differ by the rules alone. The page shows the full list, no rule, each rule left out and
each rule alone, and a greedy drop: starting from the full list, the rule whose removal costs the
least on the worst game goes, as long as no game loses more than `--tolerance` IoU (what counts
as measurable); the rules left at the end are the ones that pay. Writes the Markdown page with
`--results`.

Usage: python benchmarks/mask_rule_ablation.py CASES [--results docs/results/mask_rules.md]
       [--rules LIST] [--tolerance T] [--checkpoint CKPT] [--max-cases-per-game N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from itertools import combinations

from g2w.cases.case import load_cases
from g2w.io.results_page import markdown_table, write_results_page
from g2w.segment.mask_rules import REMOVAL_RULES, apply_rules, parse_rules
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import Segmenter, refined_mask
from g2w.video import iter_masks


def game_of(case_id: str) -> str:
    return case_id.split("-")[0] if "-" in case_id else "all"


def rule_name(item: str) -> str:
    return item.split(":")[0]


def subsets(items: list[str]) -> list[str]:
    """Every subset of `items` as a rule list in their order ("none" for the empty one)."""
    return [",".join(c) or "none" for k in range(len(items) + 1) for c in combinations(items, k)]


def named_lists(items: list[str]) -> dict[str, str]:
    """The lists the main table shows: all, none, each one left out, each one alone."""
    full = ",".join(items)
    out = {"all rules": full, "no rule": "none"}
    for k, item in enumerate(items):
        out[f"without {rule_name(item)}"] = ",".join(items[:k] + items[k + 1 :]) or "none"
    for item in items:
        out[f"only {rule_name(item)}"] = item
    return out


def greedy_drop(items: list[str], iou: dict[str, dict[str, float]], tolerance: float) -> list[tuple[str, str, dict]]:
    """Steps (dropped rule, list after, IoU per game after) of the greedy drop from the full list:
    each step drops the rule whose removal changes the worst game's IoU the least (best first),
    and stops when every remaining drop costs some game more than `tolerance`."""
    games = sorted(iou)
    current = list(items)
    steps = []
    while current:
        here = ",".join(current)
        best = None
        for k in range(len(current)):
            after = ",".join(current[:k] + current[k + 1 :]) or "none"
            worst = min(iou[g][after] - iou[g][here] for g in games)
            mean = sum(iou[g][after] for g in games) / len(games)
            if worst >= -tolerance and (best is None or (worst, mean) > best[0]):
                best = ((worst, mean), k, after)
        if best is None:
            break
        _, k, after = best
        steps.append((rule_name(current[k]), after, {g: iou[g][after] for g in games}))
        del current[k]
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases")
    parser.add_argument("--results")
    parser.add_argument("--rules", default=None, help="candidate rule list (default: REMOVAL_RULES)")
    parser.add_argument("--tolerance", type=float, default=0.001, help="IoU loss on a game that counts as measurable")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--max-cases-per-game", type=int, default=None)
    args = parser.parse_args()
    items = [s.strip() for s in (args.rules or REMOVAL_RULES).split(",") if s.strip() and s.strip() != "none"]
    every = subsets(items)
    built = {spec: parse_rules(spec) for spec in every}
    segmenter = Segmenter(args.checkpoint, threads=1, full_res=True)
    scores: dict[str, dict[str, SegmentationScore]] = defaultdict(lambda: {k: SegmentationScore() for k in every})
    seen: dict[str, int] = defaultdict(int)
    for case in load_cases(args.cases):
        game = game_of(case.case_id)
        if args.max_cases_per_game and seen[game] >= args.max_cases_per_game:
            continue
        seen[game] += 1
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask)):
            t = truth >= 128
            refined = refined_mask(pred, case.width, case.height)
            for spec, rules in built.items():
                got = apply_rules(rules, refined, pred, case.width, case.height)
                scores[game][spec].add_pixels(got > 0, t)
        print(f"{case.case_id}: done", file=sys.stderr, flush=True)
    iou = {game: {spec: round(s.result()["mask_iou"], 4) for spec, s in per.items()} for game, per in scores.items()}
    games = sorted(iou)
    print(json.dumps(iou, indent=1))
    lists = named_lists(items)
    header = ["rule list", *(f"{g} IoU ({seen[g]} cases)" for g in games), "mean"]
    rows = [
        [name, *(iou[g][spec] for g in games), round(sum(iou[g][spec] for g in games) / len(games), 4)]
        for name, spec in lists.items()
    ]
    body = markdown_table(header, rows)
    steps = greedy_drop(items, iou, args.tolerance)
    full = ",".join(items)
    drop_rows = [["(full list)", f"`{full}`", *(iou[g][full] for g in games)]]
    drop_rows += [[name, f"`{after}`", *(per[g] for g in games)] for name, after, per in steps]
    kept = steps[-1][1] if steps else full
    drops = markdown_table(["dropped", "rule list after", *(f"{g} IoU" for g in games)], drop_rows)
    ranked = sorted(every, key=lambda spec: -min(iou[g][spec] for g in games))
    best = markdown_table(
        ["rule list", *(f"{g} IoU" for g in games), "worst game"],
        [[f"`{spec}`", *(iou[g][spec] for g in games), min(iou[g][spec] for g in games)] for spec in ranked],
    )
    text = (
        f"Candidate rules, in order: `{full}`.\n\n"
        + body
        + f"\n\n## Greedy drop (a loss above {args.tolerance} IoU on any game is measurable)\n\n"
        + drops
        + f"\n\nLeft at the end: `{kept}`.\n\n## Every subset, best worst game first\n\n"
        + best
    )
    print(text)
    if args.results:
        argv = [os.path.basename(a.rstrip("/")) if os.path.isabs(a) else a for a in sys.argv[1:]]
        write_results_page(
            args.results,
            "Mask rules: removal-mask IoU per game, for each subset of the rules",
            "python " + " ".join(["benchmarks/mask_rule_ablation.py", *argv]),
            text,
        )


if __name__ == "__main__":
    main()
