"""What each mask rule is worth: the removal mask's IoU per game with the full rule list and with each rule left out.

The segmenter and its full-resolution step run once per case; every rule list is then applied to
the same predictions (`g2w.segment.mask_rules`), so the columns differ by the rules alone. A rule
whose removal costs nothing measurable on every game is a candidate for deletion. Writes the
Markdown page with `--results`.

Usage: python benchmarks/mask_rule_ablation.py CASES [--results docs/results/mask_rules.md]
       [--checkpoint CKPT] [--max-cases-per-game N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

from g2w.cases.case import load_cases
from g2w.io.results_page import markdown_table, write_results_page
from g2w.segment.mask_rules import REMOVAL_RULES
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import Segmenter, full_mask
from g2w.video import iter_masks


def game_of(case_id: str) -> str:
    return case_id.split("-")[0] if "-" in case_id else "all"


def variants() -> dict[str, str]:
    """Rule lists by name: all of them, none, and each one left out."""
    names = REMOVAL_RULES.split(",")
    out = {"all rules": REMOVAL_RULES, "no rule": "none"}
    for k, name in enumerate(names):
        out[f"without {name.split(':')[0]}"] = ",".join(names[:k] + names[k + 1 :]) or "none"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases")
    parser.add_argument("--results")
    parser.add_argument("--checkpoint", default=None)
    parser.add_argument("--max-cases-per-game", type=int, default=None)
    args = parser.parse_args()
    lists = variants()
    segmenter = Segmenter(args.checkpoint, threads=1, full_res=True)
    scores: dict[str, dict[str, SegmentationScore]] = defaultdict(lambda: {k: SegmentationScore() for k in lists})
    seen: dict[str, int] = defaultdict(int)
    for case in load_cases(args.cases):
        game = game_of(case.case_id)
        if args.max_cases_per_game and seen[game] >= args.max_cases_per_game:
            continue
        seen[game] += 1
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask)):
            t = truth >= 128
            for name, rules in lists.items():
                scores[game][name].add_pixels(full_mask(pred, case.width, case.height, rules=rules) > 0, t)
    table = {game: {name: round(s.result()["mask_iou"], 4) for name, s in per.items()} for game, per in scores.items()}
    print(json.dumps(table, indent=1))
    rows = [[name, *(table[g][name] for g in sorted(table))] for name in lists]
    body = markdown_table(["rule list", *(f"{g} IoU ({seen[g]} cases)" for g in sorted(table))], rows)
    print(body)
    if args.results:
        argv = [os.path.basename(a.rstrip("/")) if os.path.isabs(a) else a for a in sys.argv[1:]]
        write_results_page(
            args.results,
            "Mask rules: removal-mask IoU per game, each rule left out",
            "python " + " ".join(["benchmarks/mask_rule_ablation.py", *argv]),
            f"Full list: `{REMOVAL_RULES}`.\n\n" + body,
        )


if __name__ == "__main__":
    main()
