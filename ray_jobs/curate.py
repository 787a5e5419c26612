"""`python -m ray_jobs.curate INPUT... --output OUT [options]`: the curation job for
`ray job submit`; the same arguments as `g2w curate`."""

import sys

from g2w.cli import main

if __name__ == "__main__":
    sys.exit(main(["curate", *sys.argv[1:]]))
