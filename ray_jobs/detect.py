"""`python -m ray_jobs.detect VIDEO... --output OUT [--checkpoint DIR]`: the UI segmenter over videos
on Ray Data, for `ray job submit`; the same arguments as `g2w detect`."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["detect", *sys.argv[1:]]))
