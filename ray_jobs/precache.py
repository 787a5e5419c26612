"""`python -m ray_jobs.precache --pairs SYNTH_OUT... --preset P --output CACHE`: the GameCleaner
latent precache on the cluster (same arguments as `g2w gamecleaner precache`)."""

import sys

from g2w.cli import main as g2w_main


def main(argv: list[str] | None = None) -> int:
    return g2w_main(["gamecleaner", "precache", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
