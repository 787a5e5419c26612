"""The `g2w` command. Thin: parse arguments, call library functions, print results."""

from __future__ import annotations

import argparse
import json
import sys


def _positive(kind):
    def parse(text: str):
        value = kind(text)
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value

    return parse


def _probe(args: argparse.Namespace) -> int:
    from g2w.sources import probe_row

    failed = 0
    for path in args.files:
        row = probe_row(path, verify=not args.fast)
        failed += row["status"] != "ok"
        print(json.dumps(row), flush=True)
    return 1 if failed else 0


def _sample_videos(args: argparse.Namespace) -> int:
    from g2w.sample_data import generate_samples

    def progress(i: int, n: int, path: str) -> None:
        print(f"[{i}/{n}] {path}", file=sys.stderr, flush=True)

    for path in generate_samples(args.out, args.count, args.seed, args.duration_s, progress=progress):
        print(path)
    return 0


def _curate(args: argparse.Namespace) -> int:
    from g2w.curate.options import config_from_args
    from g2w.jobs.curate import NothingToDo, run_curate

    try:
        run_curate(args.inputs, args.output, config_from_args(args))
    except NothingToDo as exc:
        print(f"g2w curate: {exc}", file=sys.stderr)
        return 1
    return 0


def _demo(args: argparse.Namespace) -> int:
    from g2w.jobs.demo import run_demo

    run_demo(args.output, count=args.count, seed=args.seed, duration_s=args.duration_s)
    return 0


# --- evaluation: removal baselines, the judge job, reliability, combined tables ----------------
def _evaluate(args: argparse.Namespace) -> int:
    from g2w.jobs.evaluate import run_from_args

    try:
        summary = run_from_args(args)
    except ValueError as exc:  # a bad listing, prompt file or judge configuration
        print(f"g2w evaluate: {exc}", file=sys.stderr)
        return 2
    return 0 if summary["ok"] else 1


def _judge_agreement(args: argparse.Namespace) -> int:
    from g2w.evaluate.agreement import agreement_from_paths, agreement_table

    result = agreement_from_paths(args.runs)
    print(agreement_table(result), end="")
    if args.output:
        with open(args.output, "w") as f:
            json.dump(result, f, indent=2)
    return 0


def _remove(args: argparse.Namespace) -> int:
    from g2w.jobs.remove import run_remove

    try:
        summary = run_remove(args.method, args.cases, args.output)
    except ValueError as exc:  # a bad case listing
        print(f"g2w remove: {exc}", file=sys.stderr)
        return 2
    return 0 if summary["error"] == 0 else 1


def _eval_table(args: argparse.Namespace) -> int:
    from g2w.evaluate.tables import combined_table

    text = combined_table(args.runs)
    print(text, end="")
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


def _add_evaluation_commands(sub) -> None:
    from g2w.evaluate.options import add_arguments
    from g2w.remove import METHODS

    p = sub.add_parser("evaluate", help="judge edited videos against cases: judgments, metrics, report")
    add_arguments(p)
    p.set_defaults(run=_evaluate)

    p = sub.add_parser("judge-agreement", help="ICC, Krippendorff's alpha and Kendall's W across runs")
    p.add_argument("runs", nargs="+", metavar="RUN", help="evaluate output folders or judgments.jsonl files")
    p.add_argument("--output", help="also write the result as JSON")
    p.set_defaults(run=_judge_agreement)

    p = sub.add_parser("remove", help="run a removal baseline over cases, writing <case_id>.mp4 edits")
    p.add_argument("--method", choices=METHODS, required=True)
    p.add_argument("--cases", required=True, help="synthesis output folder or wild-cases JSONL")
    p.add_argument("--output", required=True)
    p.set_defaults(run=_remove)

    p = sub.add_parser("eval-table", help="Table 3/4 Markdown from evaluate runs (synthetic + wild per method)")
    p.add_argument("runs", nargs="+", metavar="RUN", help="evaluate output folders")
    p.add_argument("--output", help="also write the Markdown to this file")
    p.set_defaults(run=_eval_table)


def _add_sample_args(p: argparse.ArgumentParser, duration_s: float) -> None:
    p.add_argument("--count", type=_positive(int), default=5, help="number of sample videos")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--duration-s", type=_positive(float), default=duration_s, help="length of each video")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="g2w", description="Gameplay video to world-model data.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("probe", help="describe media files as JSON lines (errors included)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--fast", action="store_true", help="skip decoding a frame near the end")
    p.set_defaults(run=_probe)

    p = sub.add_parser("sample-videos", help="write procedural gameplay videos with ground-truth sidecars")
    p.add_argument("out", metavar="OUT")
    _add_sample_args(p, duration_s=30.0)
    p.set_defaults(run=_sample_videos)

    p = sub.add_parser("curate", help="curate raw gameplay videos into clean standardized 5 s clips (Ray)")
    from g2w.curate.options import add_curate_arguments

    add_curate_arguments(p)
    p.set_defaults(run=_curate)

    p = sub.add_parser("demo", help="run the main job end to end on sample videos (local Ray)")
    p.add_argument("--output", default="demo_out")
    _add_sample_args(p, duration_s=20.0)
    p.set_defaults(run=_demo)

    _add_evaluation_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
