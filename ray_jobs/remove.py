"""`python -m ray_jobs.remove --method NAME --cases CASES --output OUT [--options JSON]`: the remove
job for `ray job submit`. CPU methods run as Ray Data tasks; methods registered with `gpu=True`
(the learned removers) run on an actor pool of one actor per GPU, their model loaded once each."""

import argparse
import json
import sys

from g2w.jobs.remove import run_remove
from g2w.remove import METHODS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ray_jobs.remove", description=__doc__)
    parser.add_argument("--method", choices=sorted(METHODS), required=True)
    parser.add_argument("--cases", required=True, help="synthesis output folder or wild-cases JSONL")
    parser.add_argument("--output", required=True)
    parser.add_argument("--options", type=json.loads, default={}, help="the method's options as a JSON object")
    args = parser.parse_args(argv)
    summary = run_remove(args.method, args.cases, args.output, args.options)
    print(json.dumps(summary, indent=2))
    return 0 if summary["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
