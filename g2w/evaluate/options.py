"""Command-line options of the evaluate job, shared by `g2w evaluate` and `ray_jobs.judge`.

Kept apart from the job so that building the `g2w` parser stays cheap (no Ray, no video stack).
"""

from __future__ import annotations

import argparse

from g2w.cases.canvas import DEFAULT_CANVAS
from g2w.evaluate.judges import JUDGES
from g2w.evaluate.plan import DEFAULT_JUDGE_CHILDREN
from g2w.evaluate.schema import DEFAULT_SCHEMA_RETRIES
from g2w.option_flags import add_stall_flag


def _canvas(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"canvas must look like 1280x720, got {text!r}") from None
    if w <= 0 or h <= 0:
        raise argparse.ArgumentTypeError(f"canvas sides must be positive, got {text!r}")
    return w, h


def _retries(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"schema retries must be 0 or more, got {text!r}")
    return value


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The evaluate job's options, shared by `g2w evaluate` and `python -m ray_jobs.judge`."""
    p.add_argument("--cases", required=True, help="synthesis output folder (manifest.parquet) or wild-cases JSONL")
    p.add_argument("--edited", required=True, help="folder of edited videos named <case_id>.mp4")
    p.add_argument("--output", required=True, help="run folder to write")
    p.add_argument("--judge", choices=JUDGES, default="reference")
    p.add_argument("--endpoint", help="OpenAI-compatible base URL, e.g. http://host:8000/v1 (openai judge)")
    p.add_argument("--model", help="judge model name (openai judge)")
    p.add_argument("--api-key-env", help="name of the environment variable holding the API key")
    p.add_argument("--prompt-file", help="prompt template with {IMAGE_COUNT} and {EVIDENCE_MAPPING_JSON}")
    p.add_argument("--canvas", type=_canvas, default=DEFAULT_CANVAS, help="canonical canvas, long x short side")
    p.add_argument("--concurrency", type=int, default=4, help="judge calls in flight at once")
    p.add_argument("--requests-per-minute", type=float, help="rate limit over all judge calls")
    p.add_argument(
        "--schema-retries",
        type=_retries,
        default=DEFAULT_SCHEMA_RETRIES,
        help="extra judge calls after a reply fails the schema (0: the paper's one call per video)",
    )
    p.add_argument(
        "--judge-children",
        action=argparse.BooleanOptionalAction,
        default=DEFAULT_JUDGE_CHILDREN,
        help="judge child instances (inventory icons) as elements of their own (default: no)",
    )
    p.add_argument("--cache", dest="cache_dir", help="judge cache folder (default OUT/cache)")
    add_stall_flag(p, default="G2W_STAGE_STALL_S, else 600")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-tokens", type=int, default=8192)
    p.add_argument("--response-format", choices=("json_schema", "json_object", "none"), default="json_schema")
