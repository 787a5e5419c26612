"""Judging one video: cache look-up, one judge call, strict validation, optional bounded retries.

The protocol allows exactly one frozen judgment per video (no best-of-n). With
`schema_retries=0` (the default) that is the paper's rule exactly (J.6): one call per video, and
a reply that fails the schema makes the video "invalid", which scores as failure. As an explicit
option, a failing reply may be asked for again (`schema_retries` more times at most, each a
fresh sample); the first reply that passes is final. Both outcomes are cached; only "no answer
at all" is not.

`PrepareCases` and `JudgeCases` are the two pipeline steps of the evaluate job: evidence is
built by stateless CPU tasks; judging runs in an actor pool, whose size bounds the concurrent
calls of an endpoint judge.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field

import numpy as np

from g2w.cases.case import Case, local_case
from g2w.evaluate.evidence import download_folder, load_evidence, local_evidence, publish_evidence
from g2w.evaluate.judges import JudgeNotApplicable, JudgeRequest, JudgeUnavailable, make_judge
from g2w.evaluate.plan import DEFAULT_JUDGE_CHILDREN, plan_from_dict
from g2w.evaluate.prepare import prepare_case
from g2w.evaluate.prompt import PromptTemplate
from g2w.evaluate.records import JudgeCache, cache_key
from g2w.evaluate.schema import DEFAULT_SCHEMA_RETRIES, validate
from g2w.io import storage
from g2w.step import Batch, Resources, Step


def judge_video(judge, request: JudgeRequest, cache: JudgeCache | None, schema_retries: int) -> dict:
    """The judge's final result for one video plus its run config; raises JudgeUnavailable."""
    plan = request.plan
    pairs, samples = plan.expected_pairs(), plan.sample_ids()
    run_config = {
        **judge.settings(),
        "evidence_sha256": request.evidence.sha256,
        "canvas": list(plan.canvas),
        "eval_fps": plan.eval_fps,
        "schema_retries": schema_retries,
        "judge_children": plan.judge_children,
    }
    if judge.uses_prompt:
        run_config.update(prompt_sha256=request.prompt.sha256, prompt_source=request.prompt.source)
    key = cache_key({**run_config, "inputs": judge.cache_inputs(request)})
    if cache is not None and (hit := cache.get(key)) is not None:
        return {**hit, "run_config": run_config, "cache_key": key, "cached": True}
    attempts = []
    for attempt in range(schema_retries + 1):
        reply = judge.call(request, attempt)
        check = validate(reply.text, pairs, samples)
        attempts.append({"attempt": attempt, "raw": reply.text, "errors": check.errors, "meta": reply.meta})
        if check.ok:
            break
    result = {
        "status": "ok" if check.ok else "invalid",
        "reason": "" if check.ok else "schema_invalid",
        "message": "" if check.ok else f"no valid reply in {len(attempts)} attempts",
        "judgment": check.judgment,
        "raw_response": attempts[-1]["raw"],
        "validation": check.to_dict(),
        "attempts": attempts,
    }
    if cache is not None:
        cache.put(key, result)
    return {**result, "run_config": run_config, "cache_key": key, "cached": False}


def _empty_result(status: str, reason: str, message: str) -> dict:
    return {
        "status": status,
        "reason": reason,
        "message": message,
        "judgment": None,
        "raw_response": None,
        "validation": None,
        "attempts": [],
        "run_config": None,
        "cache_key": None,
        "cached": False,
    }


@dataclass
class PrepareCases(Step):
    """Batch of `case` (JSON) -> the same rows with validation, plan and evidence (`prepared`)."""

    edited_dir: str
    evidence_root: str
    canvas: tuple[int, int]
    eval_fps: float
    judge_children: bool = DEFAULT_JUDGE_CHILDREN

    def resources(self) -> Resources:
        return Resources(num_cpus=1, batch_size=1)

    def __call__(self, batch: Batch) -> Batch:
        out = []
        for text in batch["case"]:
            case = Case.from_json(str(text))
            try:
                row = self._prepare(case)
            except (OSError, ValueError) as exc:  # e.g. a file that vanished mid-run: one row, not a crash
                row = {
                    "status": "error",
                    "reason": "prepare_failed",
                    "message": f"{type(exc).__name__}: {exc}",
                    "method_fault": False,
                }
            out.append(json.dumps(row))
        return {"case": batch["case"], "prepared": np.array(out, dtype=object)}

    def _prepare(self, case: Case) -> dict:
        """prepare_case on this worker's disk: inputs in a bucket are fetched first, and evidence
        for a bucket output is built in a temporary folder (seeded with what the bucket already
        holds, so unchanged evidence is reused) and uploaded when it changed."""
        edited = case.edited_path(self.edited_dir)
        with local_case(case, edited) as (here, (edited_here,)):
            if not storage.is_uri(self.evidence_root):
                row = prepare_case(
                    here,
                    self.edited_dir,
                    self.evidence_root,
                    self.canvas,
                    self.eval_fps,
                    self.judge_children,
                    edited_path=edited_here,
                )
                return _named(row, edited_here, edited)
            remote = storage.join(self.evidence_root, case.case_id)
            with tempfile.TemporaryDirectory(prefix="g2w-evidence-") as root:
                local = os.path.join(root, case.case_id)
                download_folder(remote, local)
                before = load_evidence(local)
                row = prepare_case(
                    here,
                    self.edited_dir,
                    root,
                    self.canvas,
                    self.eval_fps,
                    self.judge_children,
                    edited_path=edited_here,
                )
                if row["status"] == "ready":
                    if before is None or before.sha256 != row["evidence_sha256"]:
                        publish_evidence(local, remote)
                    row["evidence_dir"] = remote
        return _named(row, edited_here, edited)


def _named(row: dict, local: str, edited: str) -> dict:
    """A prepared row that names the edit where it lives, not by its temporary local copy."""
    message = row.get("message") or ""
    return {**row, "edited_path": edited, "message": message.replace(local, edited) if local != edited else message}


@dataclass
class JudgeCases(Step):
    """Batch of (`case`, `prepared`) -> `record` (one judgments.jsonl line as JSON)."""

    judge_name: str
    judge_options: dict
    prompt_text: str
    prompt_source: str
    cache_dir: str
    schema_retries: int = DEFAULT_SCHEMA_RETRIES
    concurrency: int | None = 4  # None: as many workers as the cluster holds (local judges)
    cpus_per_call: float = 0.25
    _judge: object = field(default=None, init=False, repr=False)

    def resources(self) -> Resources:
        return Resources(num_cpus=self.cpus_per_call, batch_size=1, max_workers=self.concurrency)

    def setup(self) -> None:
        self._judge = make_judge(self.judge_name, **self.judge_options)

    def __call__(self, batch: Batch) -> Batch:
        if self._judge is None:
            self.setup()
        prompt = PromptTemplate(self.prompt_text, self.prompt_source)
        cache = JudgeCache(self.cache_dir)
        records = [
            self._judge_one(Case.from_json(str(c)), json.loads(str(p)), prompt, cache)
            for c, p in zip(batch["case"], batch["prepared"])
        ]
        return {"record": np.array([json.dumps(r) for r in records], dtype=object)}

    def _judge_one(self, case: Case, prepared: dict, prompt: PromptTemplate, cache: JudgeCache) -> dict:
        """judge_record with the case, its edit and its evidence on this worker's disk (fetched
        from a bucket when they live there); the record names them where they live."""
        if prepared.get("status") != "ready":
            return judge_record(self._judge, case, prepared, prompt, cache, self.schema_retries)
        try:
            with (
                local_case(case, prepared.get("edited_path")) as (here, (edited,)),
                local_evidence(prepared.get("evidence_dir")) as evidence,
            ):
                record = judge_record(
                    self._judge,
                    here,
                    {**prepared, "edited_path": edited, "evidence_dir": evidence},
                    prompt,
                    cache,
                    self.schema_retries,
                )
        except OSError as exc:  # a bucket that failed mid-fetch: this case's error, not the job's
            record = judge_record(
                self._judge,
                case,
                {
                    **prepared,
                    "status": "error",
                    "reason": "inputs_unreadable",
                    "message": f"{type(exc).__name__}: {exc}",
                },
                prompt,
                cache,
                self.schema_retries,
            )
        return {**record, "evidence_dir": prepared.get("evidence_dir")}


def judge_record(
    judge, case: Case, prepared: dict, prompt: PromptTemplate, cache: JudgeCache | None, schema_retries: int
) -> dict:
    """The judgments.jsonl record of one prepared case (errors included)."""
    base = {
        "case_id": case.case_id,
        "split": case.split,
        "expected": prepared.get("expected"),
        "checks": prepared.get("checks"),
        "evidence_dir": prepared.get("evidence_dir"),
        "method_fault": prepared["method_fault"],
    }
    if prepared["status"] != "ready":
        return {**base, **_empty_result("error", prepared["reason"], prepared["message"])}
    evidence = load_evidence(prepared["evidence_dir"])
    if evidence is None:
        return {**base, **_empty_result("error", "evidence_missing", f"{prepared['evidence_dir']}: incomplete")}
    request = JudgeRequest(case, prepared["edited_path"], plan_from_dict(prepared["plan"]), evidence, prompt)
    try:
        return {**base, **judge_video(judge, request, cache, schema_retries)}
    except JudgeNotApplicable as exc:
        return {**base, **_empty_result("error", exc.reason, str(exc))}
    except JudgeUnavailable as exc:
        return {**base, **_empty_result("error", "judge_unavailable", str(exc))}
