"""The pipeline steps without Ray: error rows, evidence reuse, the judge cache and reruns."""

import json
import os
import shutil
from dataclasses import replace

import numpy as np
import pytest

from g2w.cases.case import load_cases
from g2w.evaluate.evidence import load_evidence
from g2w.evaluate.judges.base import JudgeReply, JudgeRequest
from g2w.evaluate.judges.reference import ReferenceJudge
from g2w.evaluate.judging import JudgeCases, PrepareCases, judge_video
from g2w.evaluate.plan import plan_from_dict
from g2w.evaluate.prepare import prepare_case
from g2w.evaluate.prompt import load_prompt
from g2w.video import VideoWriter, iter_frames

CANVAS = (640, 360)


def _batch(cases):
    return {"case": np.array([c.to_json() for c in cases], dtype=object)}


def test_missing_and_broken_edits_become_method_faults(synth_out, tmp_path):
    cases = load_cases(synth_out)
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / "s001.mp4").write_text("not a video")
    rows = [prepare_case(c, str(edited), str(tmp_path / "ev"), CANVAS) for c in cases]
    assert [(r["status"], r["reason"], r["method_fault"]) for r in rows] == [
        ("error", "missing_edited", True),
        ("error", "edited_not_media", True),
    ]
    assert rows[0]["expected"]["samples"][0]["elements"]  # known anyway, to score the failure


def test_broken_source_is_not_the_methods_fault(synth_out, edits, tmp_path):
    case = load_cases(synth_out)[0]
    broken = tmp_path / "hud.mp4"
    with open(case.source, "rb") as f:
        broken.write_bytes(f.read()[:3000])  # truncated upload
    row = prepare_case(replace(case, source=str(broken)), edits["identity"], str(tmp_path / "ev"), CANVAS)
    assert row["status"] == "error" and row["reason"].startswith("source_") and not row["method_fault"]


def test_annotation_must_cover_every_sampled_frame(wild_cases, edits, tmp_path):
    case = load_cases(wild_cases)[0]
    with open(case.annotation) as f:
        ann = json.load(f)
    ann["frames"] = [fr for fr in ann["frames"] if fr["frame"] != 45]  # one sampled frame unannotated
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(ann))
    row = prepare_case(replace(case, annotation=str(path)), edits["identity"], str(tmp_path / "ev"), CANVAS)
    assert (row["status"], row["reason"], row["method_fault"]) == ("error", "annotation_gaps", False)


def test_listed_metadata_must_match_the_video(synth_out, edits, tmp_path):
    case = replace(load_cases(synth_out)[0], frame_count=150)  # the listing says 5 s, the video is 3 s
    row = prepare_case(case, edits["identity"], str(tmp_path / "ev"), CANVAS)
    assert (row["reason"], row["method_fault"]) == ("case_metadata", False)


def test_short_edit_fails_with_reason(synth_out, tmp_path):
    case = load_cases(synth_out)[0]
    edited = tmp_path / "edited"
    edited.mkdir()
    with VideoWriter(edited / "s000.mp4", 320, 180, 30, preset="ultrafast") as writer:
        for frame in iter_frames(case.source, end_s=2.0):  # 2 s of a 3 s clip
            writer.write(frame.rgb)
    row = prepare_case(case, str(edited), str(tmp_path / "ev"), CANVAS)
    assert (row["reason"], row["method_fault"]) == ("edited_too_short", True)


def test_steps_resume_from_evidence_and_cache(synth_out, edits, tmp_path):
    cases = load_cases(synth_out)[:1]
    edited = tmp_path / "edited"
    edited.mkdir()
    shutil.copyfile(cases[0].edited_path(edits["telea-gt"]), edited / "s000.mp4")
    prepare = PrepareCases(str(edited), str(tmp_path / "evidence"), CANVAS, 2.0)
    prompt = load_prompt()
    judge = JudgeCases("reference", {}, prompt.text, prompt.source, str(tmp_path / "cache"))

    first = json.loads(str(judge(prepare(_batch(cases)))["record"][0]))
    assert first["status"] == "ok" and not first["cached"]
    mapping = tmp_path / "evidence" / "s000" / "evidence.json"
    stamp = os.stat(mapping).st_mtime_ns

    second = json.loads(str(judge(prepare(_batch(cases)))["record"][0]))
    assert second["cached"] and second["judgment"] == first["judgment"]
    assert os.stat(mapping).st_mtime_ns == stamp  # evidence reused, not rebuilt

    shutil.copyfile(cases[0].edited_path(edits["identity"]), edited / "s000.mp4")  # a new edit
    third = json.loads(str(judge(prepare(_batch(cases)))["record"][0]))
    assert not third["cached"] and third["run_config"]["evidence_sha256"] != first["run_config"]["evidence_sha256"]
    assert os.stat(mapping).st_mtime_ns != stamp


class _Scripted:
    """A judge that replays scripted replies and counts its calls."""

    name, uses_prompt = "scripted", True

    def __init__(self, replies):
        self.replies, self.calls = list(replies), 0

    def settings(self):
        return {"judge": self.name}

    def cache_inputs(self, request):
        return {}

    def call(self, request, attempt):
        self.calls += 1
        return JudgeReply(self.replies[min(attempt, len(self.replies) - 1)])


@pytest.fixture(scope="module")
def request_(synth_out, edits, tmp_path_factory):
    case = load_cases(synth_out)[0]
    prep = prepare_case(case, edits["identity"], str(tmp_path_factory.mktemp("ev")), CANVAS)
    return JudgeRequest(
        case, prep["edited_path"], plan_from_dict(prep["plan"]), load_evidence(prep["evidence_dir"]), load_prompt()
    )


def test_one_frozen_judgment_no_best_of_n(request_):
    good = ReferenceJudge().call(request_, 0).text
    judge = _Scripted([good, "{}"])
    result = judge_video(judge, request_, None, schema_retries=2)
    assert result["status"] == "ok" and judge.calls == 1  # the first valid reply is final
    judge = _Scripted(["nope", "{}", good])
    result = judge_video(judge, request_, None, schema_retries=1)
    assert result["status"] == "invalid" and judge.calls == 2  # bounded: 1 + schema_retries
