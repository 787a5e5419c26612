"""`python -m ray_jobs.train_gamecleaner --cache CACHE --output RUN [--num-workers N --use-gpu ...]`:
GameCleaner training on Ray Train (same arguments as `g2w gamecleaner train`)."""

import sys

from g2w.cli import main as g2w_main


def main(argv: list[str] | None = None) -> int:
    return g2w_main(["gamecleaner", "train", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
