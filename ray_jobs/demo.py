"""`python -m ray_jobs.demo --output OUT`: the demo pipeline as a Ray job (same as `g2w demo`)."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["demo", *sys.argv[1:]]))
