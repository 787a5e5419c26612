"""`python -m ray_jobs.detect VIDEO_OR_FOLDER... --output OUT`: the UI segmenter over videos on Ray Data."""

import argparse
import json
import sys

from g2w.jobs.detect import run_detect


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ray_jobs.detect", description=__doc__)
    parser.add_argument("videos", nargs="+", metavar="VIDEO", help="video files, folders, globs or lists")
    parser.add_argument("--output", required=True)
    parser.add_argument("--checkpoint", default=None, help="segmenter folder (default: the shipped weights)")
    args = parser.parse_args(argv)
    summary = run_detect(args.videos, args.output, args.checkpoint)
    print(json.dumps(summary, indent=2))
    return 0 if summary["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
