"""`python -m ray_jobs.remove --cases CASES --output OUT [--method NAME ...]`: the remove job for
`ray job submit`; the same arguments as `g2w remove`. CPU methods run as Ray Data tasks; methods
registered with `gpu=True` (the learned removers) run on an actor pool of one actor per GPU, their
model loaded once each."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["remove", *sys.argv[1:]]))
