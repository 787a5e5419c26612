"""The evaluate job: cases + edited videos -> judgments, metrics, tables and a report.

    cases ──PrepareCases (Ray tasks: validate, align, canonical frames, evidence PNGs)──▶
          ──JudgeCases (Ray actor pool: one judge call per video, at most `concurrency` at
            once, rate-limited, cached)──▶ judgments.jsonl ──▶ metrics.json, table.md,
            results.parquet, summary.json, report.html

Outputs in OUT: `evidence/<case_id>/` (attachments + evidence.json), `cache/` (finished
judgments by key, unless --cache points elsewhere), `judgments.jsonl` (one record per case,
errors included), `metrics.json`, `table.md`, `results.parquet` (one row per case),
`summary.json` and `report.html`. `metrics.json` (key `run`) and every `results.parquet` row
record what the run used (canvas, judge, model, prompt hash, retries, child elements, g2w
version; `run_record.py`), and `metrics.json` (key `retries`) how many videos needed more than
one judge call. Reruns rebuild nothing whose inputs are unchanged and call the judge only for
videos without a cached final judgment.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import time
from collections import Counter

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.cases.canvas import DEFAULT_CANVAS
from g2w.cases.case import load_cases
from g2w.evaluate.align import EVAL_FPS
from g2w.evaluate.judges import make_judge
from g2w.evaluate.judging import JudgeCases, PrepareCases
from g2w.evaluate.metrics import compute_metrics, results_tables
from g2w.evaluate.plan import DEFAULT_JUDGE_CHILDREN
from g2w.evaluate.prompt import load_prompt
from g2w.evaluate.records import write_jsonl
from g2w.evaluate.run_record import retry_counts, run_record
from g2w.evaluate.schema import DEFAULT_SCHEMA_RETRIES
from g2w.evaluate.scores_page import write_report
from g2w.io import storage
from g2w.runtime.budget import job_budget
from g2w.runtime.logs import item_level
from g2w.runtime.pipeline import apply_steps, batches, dataset_from_rows, stage_requests
from g2w.runtime.ray_init import init_ray
from g2w.runtime.watchdog import stall_seconds

log = logging.getLogger(__name__)

RESULTS_SCHEMA = pa.schema(
    [
        ("case_id", pa.string()),
        ("split", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("method_fault", pa.bool_()),
        ("AAR", pa.float64()),
        ("UI", pa.float64()),
        ("Clean", pa.float64()),
        ("BG", pa.float64()),
        ("Uncertain", pa.float64()),
        ("cached", pa.bool_()),
        ("evidence_sha256", pa.string()),
        ("judge_calls", pa.int64()),
        ("canvas", pa.string()),
        ("eval_fps", pa.float64()),
        ("judge", pa.string()),
        ("judge_endpoint", pa.string()),
        ("judge_model", pa.string()),
        ("prompt_sha256", pa.string()),
        ("schema_retries", pa.int64()),
        ("judge_children", pa.bool_()),
        ("g2w_version", pa.string()),
    ]
)


def method_info(edited_dir: str) -> dict:
    """Name and traits of the method that produced the edits (`method.json`, if present)."""
    path = storage.join(edited_dir, "method.json")
    name = (
        edited_dir.rstrip("/").rsplit("/", 1)[-1]
        if storage.is_uri(edited_dir)
        else os.path.basename(os.path.normpath(edited_dir))
    )
    if storage.exists(path):
        info = json.loads(storage.read_bytes(path))
        return {
            "model": model_label(info.get("method", name), info.get("reference"), info.get("reference_oracle")),
            "mask": info.get("mask"),
            "ref_pt": info.get("ref_pt"),
            "reference": info.get("reference"),
            "reference_oracle": info.get("reference_oracle"),
        }
    return {"model": name, "mask": None, "ref_pt": None}


def model_label(method: str, reference: str | None, oracle: bool | None) -> str:
    """The results table's name for a method run: its reference source shown, an oracle said so."""
    if oracle:
        return f"{method} (oracle: ground-truth reference)"
    return f"{method} (reference: {reference})" if reference and reference != "none" else method


def judge_options(
    judge: str,
    endpoint: str | None,
    model: str | None,
    api_key_env: str | None,
    temperature: float,
    seed: int,
    max_tokens: int,
    response_format: str,
    requests_per_minute: float | None,
    concurrency: int,
) -> dict:
    if judge != "openai":
        return {}
    if not endpoint or not model:
        raise ValueError("the openai judge needs --endpoint and --model")
    # The rate limit is shared evenly by the judge workers, so the total stays within it.
    per_worker = requests_per_minute / concurrency if requests_per_minute else None
    return {
        "endpoint": endpoint,
        "model": model,
        "api_key_env": api_key_env,
        "temperature": temperature,
        "seed": seed,
        "max_tokens": max_tokens,
        "response_format": response_format,
        "requests_per_minute": per_worker,
    }


def _result_row(rec: dict, per_video: dict, run: dict) -> dict:
    v = per_video.get(rec["case_id"], {})
    return {
        "case_id": rec["case_id"],
        "split": rec["split"],
        "status": rec["status"],
        "reason": rec["reason"],
        "method_fault": bool(rec.get("method_fault")),
        "AAR": v.get("AAR"),
        "UI": v.get("UI"),
        "Clean": v.get("Clean"),
        "BG": v.get("BG"),
        "Uncertain": v.get("Uncertain"),
        "cached": bool(rec.get("cached")),
        "evidence_sha256": (rec.get("run_config") or {}).get("evidence_sha256"),
        "judge_calls": len(rec.get("attempts") or []),
        **run,
    }


def run_evaluate(
    cases: str,
    edited: str,
    output: str,
    judge: str = "reference",
    endpoint: str | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    prompt_file: str | None = None,
    canvas: tuple[int, int] = DEFAULT_CANVAS,
    concurrency: int = 4,
    requests_per_minute: float | None = None,
    schema_retries: int = DEFAULT_SCHEMA_RETRIES,
    cache_dir: str | None = None,
    temperature: float = 0.0,
    seed: int = 0,
    max_tokens: int = 8192,
    response_format: str = "json_schema",
    eval_fps: float = EVAL_FPS,
    judge_children: bool = DEFAULT_JUDGE_CHILDREN,
    stall_s: float | None = None,
) -> dict:
    """Evaluate the edits in `edited` (`<case_id>.mp4`) against `cases`; returns the summary.

    The job plans for the CPUs that others' reservations leave it when it starts (the service's
    replicas on a small node; `g2w.runtime.budget`), and fails with `StageStalled`, naming the
    stage, once no stage moved for `stall_s` (`g2w.runtime.watchdog`)."""
    start = time.perf_counter()
    stall_s = stall_seconds(stall_s)
    output = storage.absolute(output)
    edited = storage.absolute(edited)
    case_list = load_cases(cases)
    options = judge_options(
        judge,
        endpoint,
        model,
        api_key_env,
        temperature,
        seed,
        max_tokens,
        response_format,
        requests_per_minute,
        concurrency,
    )
    judge_client = make_judge(judge, **options)  # fails fast on a bad configuration
    prompt = load_prompt(prompt_file)
    run = run_record(
        judge_client.settings(),
        judge_client.uses_prompt,
        prompt.sha256,
        canvas,
        eval_fps,
        schema_retries,
        judge_children,
    )
    storage.makedirs(output)  # only once the inputs and configuration are known good
    cache_dir = storage.absolute(cache_dir or storage.join(output, "cache"))
    log.info(f"evaluate: {len(case_list)} cases from {cases}, edits in {edited}, judge {judge}")

    init_ray(output=output)
    budget = job_budget()
    steps = [
        PrepareCases(
            edited, storage.join(output, "evidence"), (int(canvas[0]), int(canvas[1])), eval_fps, judge_children
        ),
        # An endpoint judge waits on the network: light workers, at most `concurrency` of them.
        # The reference judge is local CPU work, so it takes whole cores and fills the budget
        # (Ray Data then fuses it with evidence building, next to the frames it decodes).
        JudgeCases(
            judge,
            options,
            prompt.text,
            prompt.source,
            cache_dir,
            schema_retries,
            concurrency if judge == "openai" else None,
            cpus_per_call=0.25 if judge == "openai" else 1.0,
        ),
    ]
    log.info(f"evaluate: budget {budget.cpus:g} CPUs of what others' reservations leave free")
    ds = apply_steps(dataset_from_rows([{"case": c.to_json()} for c in case_list]), steps, budget)
    records = []
    for batch in batches(ds, 1, stall_s, stage_requests(steps, budget)):
        for text in batch["record"]:
            rec = json.loads(str(text))
            records.append(rec)
            tag = " (cached)" if rec.get("cached") else ""
            log.log(
                item_level(rec),
                f"  [{len(records)}/{len(case_list)}] {rec['case_id']}: {rec['status']} {rec['reason']}{tag}",
            )
    # Everything below is the driver's: written to a local folder, which is the output itself on
    # a disk and is uploaded to the bucket prefix (the report last) for a URI.
    with storage.staged_dir(output) as local:
        write_jsonl(os.path.join(local, "judgments.jsonl"), records)

        metrics = compute_metrics(records)
        info = method_info(edited)
        tables = results_tables([{**info, "splits": metrics["splits"]}])
        with open(os.path.join(local, "metrics.json"), "w") as f:
            json.dump(
                {
                    **metrics,
                    "method": info,
                    "run": run,
                    "retries": retry_counts(records, schema_retries),
                    "judge": judge_client.settings(),
                },
                f,
                indent=1,
            )
        with open(os.path.join(local, "table.md"), "w") as f:
            f.write(tables)
        per_video = {cid: v for m in metrics["splits"].values() for cid, v in m["per_video"].items()}
        rows = [_result_row(r, per_video, run) for r in sorted(records, key=lambda r: r["case_id"])]
        pq.write_table(pa.Table.from_pylist(rows, schema=RESULTS_SCHEMA), os.path.join(local, "results.parquet"))

        statuses = Counter(r["status"] for r in records)
        summary = {
            "cases": len(records),
            "ok": statuses.get("ok", 0),
            "invalid": statuses.get("invalid", 0),
            "error": statuses.get("error", 0),
            "cached": sum(bool(r.get("cached")) for r in records),
            "judge_calls": sum(len(r.get("attempts") or []) for r in records if not r.get("cached")),
            "errors_by_reason": dict(Counter(r["reason"] for r in records if r["reason"])),
            "method": info["model"],
            "judge": judge,
            **({"model": model} if model else {}),
            "prompt_sha256": run["prompt_sha256"],
            "schema_retries": schema_retries,
            "judge_children": judge_children,
            "canvas": run["canvas"],
            "eval_fps": eval_fps,
            "scores": {
                split: {k: m[k] for k in ("AAR", "UI", "Clean", "BG", "Uncertain", "Coverage")}
                for split, m in metrics["splits"].items()
            },
            "Overall": metrics["Overall"],
            "seconds": round(time.perf_counter() - start, 2),
        }
        with open(os.path.join(local, "summary.json"), "w") as f:
            json.dump(summary, f, indent=2)
        write_report(local, records, metrics, summary, tables, root=output)
    log.info(
        tables + f"judgments: {storage.join(output, 'judgments.jsonl')}\n"
        f"report:    {storage.join(output, 'report.html')}"
    )
    return summary


def run_from_args(args: argparse.Namespace) -> dict:
    return run_evaluate(
        args.cases,
        args.edited,
        args.output,
        judge=args.judge,
        endpoint=args.endpoint,
        model=args.model,
        api_key_env=args.api_key_env,
        prompt_file=args.prompt_file,
        canvas=args.canvas,
        concurrency=args.concurrency,
        requests_per_minute=args.requests_per_minute,
        schema_retries=args.schema_retries,
        cache_dir=args.cache_dir,
        temperature=args.temperature,
        seed=args.seed,
        max_tokens=args.max_tokens,
        response_format=args.response_format,
        judge_children=args.judge_children,
        stall_s=getattr(args, "stall_s", None),
    )
