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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
