"""Job flags generated from the jobs' options dataclasses keep the names and defaults users'
commands rely on, and the `ray_jobs/` entry points take exactly the `g2w` command's flags."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

from g2w.cli import build_parser
from g2w.jobs.options import (
    DetectOptions,
    GameCleanerTrainOptions,
    PrecacheOptions,
    RefinerTrainOptions,
    RemoveOptions,
    SegmenterTrainOptions,
)
from g2w.option_flags import add_flags, from_args, option, positive

REQUIRED = object()
# The flags (and defaults) of these commands before they were generated; a changed name or default
# breaks users' commands. New flags may be added.
FLAGS = {
    ("hud-segmenter", "train"): (
        SegmenterTrainOptions,
        {
            "--anchored-negatives": 0.0,
            "--batch-size": 16,
            "--crop": 160,
            "--data": REQUIRED,
            "--element-weight": 0.0,
            "--eval-every": 250,
            "--init": None,
            "--lr": None,
            "--lr-schedule": "cosine",
            "--output": REQUIRED,
            "--seed": 0,
            "--static-world-weight": 0.0,
            "--steps": 2000,
            "--val": REQUIRED,
        },
    ),
    ("hud-segmenter", "train-refiner"): (
        RefinerTrainOptions,
        {
            "--batch-size": 16,
            "--checkpoint": None,
            "--data": REQUIRED,
            "--dilations": [1, 2, 1],
            "--eval-every": 500,
            "--iou-weight": 0.0,
            "--output": REQUIRED,
            "--real-share": 0.0,
            "--seed": 0,
            "--steps": 1500,
            "--val": REQUIRED,
            "--width": 8,
            "--window-max": False,
        },
    ),
    ("gamecleaner", "precache"): (
        PrecacheOptions,
        {
            "--base": None,
            "--checkpoint": None,
            "--mllm": None,
            "--output": REQUIRED,
            "--pairs": REQUIRED,
            "--preset": "tiny",
            "--seed": 0,
        },
    ),
    ("gamecleaner", "train"): (
        GameCleanerTrainOptions,
        {
            "--base": None,
            "--cache": REQUIRED,
            "--checkpoint": None,
            "--checkpoint-every": 100,
            "--global-batch": 32,
            "--lr": 1e-4,
            "--lr-schedule": "constant",
            "--max-failures": 2,
            "--num-workers": 1,
            "--output": REQUIRED,
            "--parallel": "ddp",
            "--preset": "tiny",
            "--seed": 0,
            "--skip-errors": False,
            "--steps": 3000,
            "--use-gpu": False,
            "--validation-pairs": 1,
            "--warmup-steps": 0,
        },
    ),
    ("detect",): (DetectOptions, {"videos": REQUIRED, "--checkpoint": None, "--output": REQUIRED}),
    ("remove",): (
        RemoveOptions,
        {
            "--base-dir": None,
            "--cases": REQUIRED,
            "--checkpoint": None,
            "--mask": None,
            "--mask-rules": None,
            "--method": "unblend+propagate",
            "--mllm-dir": None,
            "--output": REQUIRED,
            "--reference": None,
            "--reference-image": None,
            "--steps": None,
        },
    ),
}


def _subparser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


@pytest.mark.parametrize("path", list(FLAGS), ids=" ".join)
def test_flags_keep_their_names_and_defaults(path):
    cls, expected = FLAGS[path]
    actions = {(a.option_strings or [a.dest])[0]: a for a in _subparser(path)._actions if a.dest != "help"}
    for flag, default in expected.items():
        assert flag in actions, f"{' '.join(path)} lost {flag}"
        got = REQUIRED if actions[flag].required or (not actions[flag].option_strings) else actions[flag].default
        assert got == default, f"{' '.join(path)} {flag}: default {got!r}, was {default!r}"
    # every flag is a field of the job's options, so the parsed command builds them whole; the stall
    # time is the command's own (held for the whole command, as -v is), not an option of the job
    assert {a.dest for a in actions.values()} - {"stall_s"} == {f for f in cls.__dataclass_fields__}


def test_parsed_flags_build_the_options_the_job_takes():
    args = build_parser().parse_args(
        [
            "gamecleaner",
            "train",
            "--cache",
            "c",
            "--output",
            "r",
            "--base",
            "wan",
            "--use-gpu",
            "--parallel",
            "fsdp",
            "--steps",
            "7",
        ]
    )
    assert from_args(GameCleanerTrainOptions, args) == GameCleanerTrainOptions(
        "c", "r", base_dir="wan", use_gpu=True, parallel="fsdp", steps=7
    )
    args = build_parser().parse_args(
        [
            "hud-segmenter",
            "train-refiner",
            "--data",
            "a",
            "b",
            "--val",
            "v",
            "--output",
            "r",
            "--dilations",
            "1",
            "3",
            "--window-max",
        ]
    )
    options = from_args(RefinerTrainOptions, args)
    assert options.data == ["a", "b"] and options.refiner() == {"width": 8, "window_max": True, "dilations": [1, 3]}


def test_generated_flags_follow_the_fields():
    @dataclass
    class Example:
        inputs: list[str] = field(metadata=option("files", nargs="+", positional=True))
        output: str = field(metadata=option("where"))
        count: int = field(default=3, metadata=option("how many", type=positive(int)))
        base_dir: str | None = field(default=None, metadata=option("a folder", flag="--base", aliases=("-b",)))
        fast: bool = False
        ratio: float = 0.5

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_flags(parser, Example)
    args = parser.parse_args(["x", "y", "--output", "o", "-b", "B", "--fast", "--ratio", "0.25"])
    assert from_args(Example, args) == Example(["x", "y"], "o", 3, "B", True, 0.25)
    assert "how many (default: 3)" in parser.format_help()
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["x", "--output", "o", "--count", "0"])  # positive
    with pytest.raises(SystemExit):
        parser.parse_args(["x"])  # --output is required


def test_remove_options_refuse_what_the_method_cannot_use():
    with pytest.raises(ValueError, match="--mask applies to"):
        RemoveOptions("c", "o", method="identity", mask="gt")
    with pytest.raises(ValueError):
        RemoveOptions("c", "o", method="propagate", mask_rules="no_such_rule")
    assert RemoveOptions("c", "o", method="propagate", mask="gt", steps=None).method_options() == {"mask": "gt"}


@pytest.mark.parametrize("job", ["remove", "detect"])
def test_ray_jobs_take_the_commands_flags(job, tmp_path):
    """`python -m ray_jobs.<job>` is the `g2w <job>` command: same flags, same refusals."""
    args = {
        "remove": [
            "--method",
            "identity",
            "--cases",
            str(tmp_path),
            "--output",
            str(tmp_path / "o"),
            "--mask-rules",
            "centre_mark",
        ],
        "detect": [str(tmp_path / "none-*.mp4"), "--output", str(tmp_path / "o")],
    }[job]
    runs = [
        subprocess.run(
            [sys.executable, "-m", m, *([job] if m == "g2w.cli" else []), *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        for m in ("g2w.cli", f"ray_jobs.{job}")
    ]
    assert runs[0].returncode == runs[1].returncode == 2
    assert runs[0].stderr == runs[1].stderr and runs[0].stderr.startswith(f"g2w {job}: ")
    help_texts = [
        subprocess.run(
            [sys.executable, "-m", m, *([job] if m == "g2w.cli" else []), "--help"],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        for m in ("g2w.cli", f"ray_jobs.{job}")
    ]
    assert help_texts[0] == help_texts[1]
