"""Jobs: steps composed over the Ray runtime, with their outputs, summaries and reports.

Each job is a plain function that `g2w.cli` and the thin `ray_jobs/` entrypoints both call.
"""
