"""The `openai` judge against a local fake OpenAI-compatible server: valid and malformed
replies, schema retries, transport retries, response_format fallback, and a key that is sent
but never written."""

import base64
import json
import os
import shutil

import pytest

from g2w.cases.case import load_cases
from g2w.evaluate.evidence import load_evidence
from g2w.evaluate.judges.openai_judge import OpenAIJudge
from g2w.evaluate.judging import judge_record
from g2w.evaluate.prepare import prepare_case
from g2w.evaluate.prompt import load_prompt
from g2w.evaluate.records import JudgeCache, write_jsonl
from tests.evaluate.fake_openai import FakeOpenAI

KEY = "sk-test-SECRET-4f9a2c"


@pytest.fixture(scope="module")
def server():
    srv = FakeOpenAI()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def prepared(wild_cases, edits, tmp_path_factory):
    """One wild case (no reference) prepared at a small canvas, with its identity edit."""
    root = tmp_path_factory.mktemp("openai")
    case = load_cases(wild_cases)[0]
    edited = root / "edited"
    edited.mkdir()
    shutil.copyfile(os.path.join(edits["identity"], case.case_id[2:] + ".mp4"), edited / f"{case.case_id}.mp4")
    prep = prepare_case(case, str(edited), str(root / "evidence"), (320, 180))
    assert prep["status"] == "ready", prep
    return case, prep


@pytest.fixture
def judge(server, monkeypatch):
    monkeypatch.setenv("G2W_TEST_KEY", KEY)
    return OpenAIJudge(
        endpoint=server.url,
        model="judge-vl",
        api_key_env="G2W_TEST_KEY",
        seed=7,
        max_tokens=4096,
        backoff_s=0.01,
        backoff_max_s=0.02,
    )


def _run(judge, prepared, cache=None, retries=2):
    case, prep = prepared
    return judge_record(judge, case, prep, load_prompt(), cache, retries)


def test_valid_reply_and_request_shape(server, judge, prepared):
    server.reset("valid")
    rec = _run(judge, prepared)
    assert rec["status"] == "ok" and rec["split"] == "wild" and len(server.requests) == 1
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions" and req["headers"]["Authorization"] == f"Bearer {KEY}"
    body = req["body"]
    assert (body["model"], body["seed"], body["temperature"], body["max_tokens"]) == ("judge-vl", 7, 0.0, 4096)
    assert body["response_format"]["type"] == "json_schema"
    content = body["messages"][0]["content"]
    count = len(load_evidence(prepared[1]["evidence_dir"]).files)
    assert len(content) == 1 + count  # the prompt, then every attachment, one call per video
    assert f"This request carries {count} images" in content[0]["text"]
    assert "{EVIDENCE_MAPPING_JSON}" not in content[0]["text"]
    first = content[1]["image_url"]["url"]
    assert first.startswith("data:image/png;base64,")
    with open(os.path.join(prepared[1]["evidence_dir"], "0001.png"), "rb") as f:
        assert base64.b64decode(first.split(",", 1)[1]) == f.read()
    assert rec["run_config"]["model"] == "judge-vl" and rec["run_config"]["prompt_sha256"]
    assert rec["raw_response"] == rec["attempts"][0]["raw"] and rec["attempts"][0]["meta"]["http_status"] == 200


def test_malformed_reply_is_retried_with_a_new_seed(server, judge, prepared):
    server.reset("malformed", "fenced")
    rec = _run(judge, prepared)
    assert rec["status"] == "ok" and len(rec["attempts"]) == 2
    assert rec["attempts"][0]["errors"] and not rec["attempts"][1]["errors"]
    assert [r["body"]["seed"] for r in server.requests] == [7, 8]


def test_always_malformed_becomes_invalid_and_is_cached(server, judge, prepared, tmp_path):
    server.reset("malformed")
    cache = JudgeCache(str(tmp_path / "cache"))
    rec = _run(judge, prepared, cache, retries=2)
    assert rec["status"] == "invalid" and rec["reason"] == "schema_invalid" and len(server.requests) == 3
    assert rec["judgment"] is None and rec["validation"]["ok"] is False
    again = _run(judge, prepared, cache, retries=2)  # a rerun never calls the judge again
    assert again["cached"] and again["status"] == "invalid" and len(server.requests) == 3


def test_transport_errors_are_retried_with_backoff(server, judge, prepared):
    server.reset(500, 503, "valid")
    rec = _run(judge, prepared)
    assert rec["status"] == "ok" and len(server.requests) == 3
    assert rec["attempts"][0]["meta"]["transport_failures"] == ["HTTP 500", "HTTP 503"]


def test_unsupported_response_format_falls_back(server, judge, prepared):
    server.reset("reject_format", "valid")
    rec = _run(judge, prepared)
    assert rec["status"] == "ok" and "response_format" not in server.requests[1]["body"]
    assert rec["attempts"][0]["meta"]["response_format_used"] == "none"


def test_refused_request_is_an_uncached_error(server, judge, prepared, tmp_path):
    server.reset(401)
    cache = JudgeCache(str(tmp_path / "cache"))
    rec = _run(judge, prepared, cache)
    assert rec["status"] == "error" and rec["reason"] == "judge_unavailable" and len(server.requests) == 1
    assert not os.path.exists(tmp_path / "cache")
    server.reset(502)
    assert _run(judge, prepared)["reason"] == "judge_unavailable" and len(server.requests) == 5  # 1 + 4 retries


def test_api_key_is_never_written(server, judge, prepared, tmp_path):
    server.reset("malformed", "valid")
    cache = JudgeCache(str(tmp_path / "cache"))
    records = [_run(judge, prepared, cache)]
    server.reset(500, 401)
    records.append(_run(judge, prepared))
    write_jsonl(
        str(tmp_path / "judgments.jsonl"), [{**r, "case_id": f"{r['case_id']}_{i}"} for i, r in enumerate(records)]
    )
    assert KEY not in json.dumps(records) and KEY not in json.dumps(judge.settings())
    for folder, _, files in os.walk(tmp_path):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                assert KEY.encode() not in f.read(), name


def test_missing_key_variable_fails_fast(server, monkeypatch):
    monkeypatch.delenv("G2W_ABSENT_KEY", raising=False)
    with pytest.raises(ValueError, match="G2W_ABSENT_KEY"):
        OpenAIJudge(endpoint=server.url, model="m", api_key_env="G2W_ABSENT_KEY")
