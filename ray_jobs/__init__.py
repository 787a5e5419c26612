"""Entrypoints for `ray job submit -- python -m ray_jobs.<job> ...`: argument parsing only; the
work lives in `g2w.jobs`. They attach to the cluster through RAY_ADDRESS, which `ray job submit`
sets, and otherwise start a local Ray."""
