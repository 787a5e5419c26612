"""`python -m ray_jobs.judge --cases CASES --edited DIR --output OUT [--judge openai ...]`:
the evaluate job (evidence on Ray Data, bounded-concurrency judging), for `ray job submit`."""

import argparse
import json
import sys

from g2w.cli import add_verbose_flag
from g2w.evaluate.options import add_arguments
from g2w.jobs.evaluate import run_from_args
from g2w.jobs.summary import exit_status
from g2w.runtime.logs import configure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ray_jobs.judge", description=__doc__)
    add_arguments(parser)
    add_verbose_flag(parser)
    args = parser.parse_args(argv)
    configure(getattr(args, "verbose", False))
    summary = run_from_args(args)
    print(json.dumps(summary, indent=2))
    return exit_status(summary)


if __name__ == "__main__":
    sys.exit(main())
