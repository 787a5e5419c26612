"""`python -m ray_jobs.synthesize --clips CLIPS --assets LIB --output OUT --count N --seed S`: render
paired clean/HUD samples on Ray Data (same options as `g2w synthesize`)."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["synthesize", *sys.argv[1:]]))
