"""`python -m ray_jobs.probe FILE... --output sources.parquet`: probe many files on Ray Data."""

import argparse
import json
import sys

from g2w.cli import add_verbose_flag
from g2w.jobs.probe import run_probe
from g2w.jobs.summary import exit_status
from g2w.runtime.logs import configure


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ray_jobs.probe", description=__doc__)
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--output", required=True, help="path of the sources.parquet to write")
    parser.add_argument("--fast", action="store_true", help="skip decoding a frame near the end")
    add_verbose_flag(parser)
    args = parser.parse_args(argv)
    configure(getattr(args, "verbose", False))
    summary = run_probe(args.files, args.output, verify=not args.fast)
    print(json.dumps(summary, indent=2))
    return exit_status(summary)


if __name__ == "__main__":
    sys.exit(main())
