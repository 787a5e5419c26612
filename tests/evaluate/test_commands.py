"""The evaluation subcommands of `g2w` that run without Ray: judge-agreement and eval-table."""

import json

import pytest

from g2w.cli import build_parser, main
from tests.evaluate.test_agreement import _run


def test_judge_agreement_command(tmp_path, capsys):
    a = _run({"v1": ("removed", "preserved"), "v2": ("present", "major_change"), "v3": ("removed", "minor_change")})
    b = _run({"v1": ("removed", "preserved"), "v2": ("present", "minor_change"), "v3": ("present", "minor_change")})
    paths = []
    for name, records in (("a", a), ("b", b)):
        run = tmp_path / name
        run.mkdir()
        (run / "judgments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        paths.append(str(run))
    out = tmp_path / "agreement.json"
    assert main(["judge-agreement", *paths, str(tmp_path / "a" / "judgments.jsonl"), "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "ICC(A,3)" in printed and "| BG |" in printed
    result = json.loads(out.read_text())
    assert (
        result["raters"] == 3
        and result["videos"] == 3
        and set(result["metrics"]) == {"AAR", "UI", "Clean", "BG", "Uncertain"}
    )


RUN = {
    "canvas": "1280x720",
    "eval_fps": 2.0,
    "judge": "openai",
    "judge_endpoint": "http://x/v1/chat/completions",
    "judge_model": "judge-vl",
    "prompt_sha256": "ab" * 32,
    "schema_retries": 0,
    "judge_children": False,
    "g2w_version": "0.1.0",
}


def _metrics_file(folder, split, aar, bg, model="telea-gt", run=RUN):
    folder.mkdir()
    values = {k: None for k in ("UI", "Clean", "Uncertain", "Frame-Macro", "Box-Micro", "Track-All", "Track-Clean")}
    (folder / "metrics.json").write_text(
        json.dumps(
            {
                "splits": {split: {**values, "AAR": aar, "BG": bg}},
                "method": {"model": model, "mask": True, "ref_pt": False},
                **({"run": run} if run else {}),
            }
        )
    )
    return str(folder)


def test_eval_table_combines_synthetic_and_wild_runs(tmp_path, capsys):
    syn = _metrics_file(tmp_path / "syn", "synthetic", 40.0, 90.0)
    wild = _metrics_file(tmp_path / "wild", "wild", 20.0, 70.0)
    out = tmp_path / "table.md"
    assert main(["eval-table", syn, wild, "--output", str(out)]) == 0
    row = [line for line in out.read_text().splitlines() if line.startswith("| telea-gt")][0]
    assert row.startswith("| telea-gt | ✔ | ✘ | 55.00 | 40.00 |")  # (40 + 90 + 20 + 70) / 4
    with pytest.raises(ValueError, match="already has a synthetic run"):
        main(["eval-table", syn, syn])


def test_evaluate_and_remove_arguments():
    args = build_parser().parse_args(
        [
            "evaluate",
            "--cases",
            "c",
            "--edited",
            "e",
            "--output",
            "o",
            "--judge",
            "openai",
            "--endpoint",
            "http://x/v1",
            "--model",
            "m",
            "--api-key-env",
            "KEY",
            "--prompt-file",
            "p.txt",
            "--canvas",
            "1920x1080",
        ]
    )
    assert (args.judge, args.canvas, args.api_key_env, args.concurrency) == ("openai", (1920, 1080), "KEY", 4)
    assert build_parser().parse_args(["evaluate", "--cases", "c", "--edited", "e", "--output", "o"]).canvas == (
        1280,
        720,
    )
    assert (
        build_parser().parse_args(["remove", "--method", "telea-gt", "--cases", "c", "--output", "o"]).method
        == "telea-gt"
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["remove", "--method", "magic", "--cases", "c", "--output", "o"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["evaluate", "--cases", "c", "--edited", "e", "--output", "o", "--canvas", "big"])


def test_eval_table_refuses_runs_of_different_canvas_judge_or_prompt(tmp_path, capsys):
    syn = _metrics_file(tmp_path / "syn", "synthetic", 40.0, 90.0)
    wild = _metrics_file(tmp_path / "wild", "wild", 20.0, 70.0, run={**RUN, "canvas": "1920x1080"})
    other = _metrics_file(
        tmp_path / "other",
        "wild",
        30.0,
        60.0,
        model="identity",
        run={**RUN, "judge_model": "judge-xl", "prompt_sha256": "cd" * 32},
    )
    old = _metrics_file(tmp_path / "old", "wild", 30.0, 60.0, model="old", run=None)
    out = tmp_path / "table.md"
    for listing, named in (
        ([syn, wild], "canvas: 1280x720"),
        ([syn, other], "judge_model"),
        ([syn, other], "prompt_sha256"),
        ([syn, old], "run record"),
    ):
        assert main(["eval-table", *listing, "--output", str(out)]) == 2
        assert named in capsys.readouterr().err and not out.exists()
    assert main(["eval-table", syn, wild, other, "--allow-mixed", "--output", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("**Mixed runs (--allow-mixed)") and "1920x1080" in text and "judge-xl" in text
    assert "| telea-gt | ✔ | ✘ | 55.00 |" in text
    capsys.readouterr()
    assert main(["eval-table", syn, _metrics_file(tmp_path / "same", "wild", 1.0, 2.0, model="x")]) == 0
    assert "Mixed" not in capsys.readouterr().out


def test_evaluate_defaults_are_the_papers_protocol():
    args = build_parser().parse_args(["evaluate", "--cases", "c", "--edited", "e", "--output", "o"])
    assert args.schema_retries == 0 and args.judge_children is False
    args = build_parser().parse_args(
        ["evaluate", "--cases", "c", "--edited", "e", "--output", "o", "--schema-retries", "2", "--judge-children"]
    )
    assert args.schema_retries == 2 and args.judge_children is True
    with pytest.raises(SystemExit):
        build_parser().parse_args(
            ["evaluate", "--cases", "c", "--edited", "e", "--output", "o", "--schema-retries", "-1"]
        )
