"""`python -m ray_jobs.capture (GAME | --all) --output OUT --clips N --seed S`: real footage, one Ray task per clip."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["capture", *sys.argv[1:]]))
