"""What an evaluate run used, recorded with its results, and the check that runs compare alike.

The paper keeps canonical canvases apart ("not mixed in one formal comparison table", J.2) and
freezes the judge model and prompt (J.6). `metrics.json` and `results.parquet` therefore carry
the canvas, the judge kind, its endpoint and model, the prompt hash, the schema-retry bound, the
child-element option and the g2w version, and `g2w eval-table` refuses to put runs that differ
in any of `COMPARED` into one table unless asked to (then the table says which differ).
"""

from __future__ import annotations

from collections import Counter

from g2w import __version__

# Settings that change what a score means; runs differing in any of them are not comparable.
COMPARED = ("canvas", "eval_fps", "judge", "judge_model", "prompt_sha256", "judge_children")


def judge_model(settings: dict) -> str:
    """The endpoint's model name, or the local judge's name and version."""
    if settings.get("model"):
        return str(settings["model"])
    return f"{settings['judge']} v{settings['version']}" if "version" in settings else str(settings["judge"])


def run_record(
    judge_settings: dict,
    uses_prompt: bool,
    prompt_sha256: str,
    canvas: tuple[int, int],
    eval_fps: float,
    schema_retries: int,
    judge_children: bool,
) -> dict:
    return {
        "canvas": f"{canvas[0]}x{canvas[1]}",
        "eval_fps": eval_fps,
        "judge": judge_settings["judge"],
        "judge_endpoint": judge_settings.get("endpoint"),
        "judge_model": judge_model(judge_settings),
        "prompt_sha256": prompt_sha256 if uses_prompt else None,  # the local judge reads no prompt
        "schema_retries": schema_retries,
        "judge_children": judge_children,
        "g2w_version": __version__,
    }


def retry_counts(records: list[dict], schema_retries: int) -> dict:
    """How many videos needed more than the one judge call (always 0 videos at schema_retries 0)."""
    calls = Counter(len(r.get("attempts") or []) for r in records if r["status"] in ("ok", "invalid"))
    return {
        "schema_retries": schema_retries,
        "videos_judged": sum(calls.values()),
        "videos_retried": sum(n for k, n in calls.items() if k > 1),
        "extra_calls": sum((k - 1) * n for k, n in calls.items() if k > 1),
        "invalid_videos": sum(r["status"] == "invalid" for r in records),
    }


def differences(runs: dict[str, dict | None]) -> dict[str, dict[str, list[str]]]:
    """For each compared setting that is not the same everywhere: value -> the runs having it.

    `runs` maps a run's name to its record, None for a run made before records existed: its
    settings are unknown, so with other runs beside it that is a difference of its own.
    """
    missing = [name for name, rec in runs.items() if rec is None]
    if missing:
        if len(runs) == 1:
            return {}
        return {"run record": {"missing": missing, "present": [n for n in runs if n not in missing]}}
    out = {}
    for key in COMPARED:
        by_value: dict[str, list[str]] = {}
        for name, rec in runs.items():
            by_value.setdefault(str(rec.get(key)), []).append(name)
        if len(by_value) > 1:
            out[key] = by_value
    return out
