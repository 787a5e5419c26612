"""What a user sees from a Ray Data job off a terminal: g2w's own lines, not Ray's.

The job runs in a subprocess whose stdout and stderr are pipes, as under CI, `make demo > log`
or `ray job submit`. Quiet, it prints only its result and one line about Ray; `--verbose` brings
back Ray Data's own messages, which shows the quiet run hid them rather than never had them.
"""

import json
import subprocess
import sys

from g2w.cli import add_verbose_flag, build_parser

RAY_DATA_LINES = ("streaming_executor", "Execution plan", "Running Dataset", "Dataset dataset_")


def _probe_job(out, *paths, verbose=False):
    argv = [sys.executable, "-m", "ray_jobs.probe", *paths, "--output", str(out), *(["--verbose"] if verbose else [])]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)


def test_a_job_off_a_terminal_is_quiet_and_verbose_brings_ray_back(make_video, tmp_path):
    video = make_video(frames=8)
    quiet = _probe_job(tmp_path / "q.parquet", video)
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert json.loads(quiet.stdout)["ok"] == 1  # the result alone on stdout
    lines = quiet.stderr.splitlines()
    assert not [line for line in lines if any(mark in line for mark in RAY_DATA_LINES)], quiet.stderr
    assert len(lines) <= 3, quiet.stderr
    assert lines[0].startswith("ray: ") and "logs" in lines[0]

    loud = _probe_job(tmp_path / "v.parquet", video, verbose=True)
    assert loud.returncode == 0, loud.stderr[-3000:]
    assert any("streaming_executor" in line for line in loud.stderr.splitlines()), loud.stderr


def test_every_subcommand_takes_verbose():
    parser = build_parser()
    add_verbose_flag(parser)
    argv = {
        ("probe", "f"),
        ("assets", "bootstrap", "--output", "o"),
        ("gamecleaner", "import-kiwi", "k", "--base", "b", "--output", "o"),
        ("serve-keys", "--state-dir", "s", "list"),
    }
    for args in argv:
        assert parser.parse_args(["-v", *args]).verbose is True  # before the subcommand
        assert parser.parse_args([*args, "--verbose"]).verbose is True  # or after it
        assert not hasattr(parser.parse_args(list(args)), "verbose")
