"""`python -m ray_jobs.judge --cases CASES --edited DIR --output OUT [--judge openai ...]`:
the evaluate job (evidence on Ray Data, bounded-concurrency judging), for `ray job submit`."""

import argparse
import json
import sys

from g2w.evaluate.options import add_arguments
from g2w.jobs.evaluate import run_from_args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ray_jobs.judge", description=__doc__)
    add_arguments(parser)
    summary = run_from_args(parser.parse_args(argv))
    print(json.dumps(summary, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
