"""Four-level captions against the judge tests' scripted OpenAI-compatible endpoint: a valid
reply, an off-schema one retried, one that stays off-schema, a timeout, resuming, and the
`g2w caption` command filling the dataset manifest."""

import json
import re

import pyarrow.parquet as pq
import pytest

from g2w.caption.captioner import caption_segment
from g2w.caption.client import CaptionClient
from g2w.caption.schema import validate_caption
from g2w.cli import main
from g2w.sample_data.walkthrough import WalkSpec, write_walkthrough
from tests.evaluate.fake_openai import FakeOpenAI


def caption_reply(body) -> str:
    """A valid four-level caption for the segment the prompt describes."""
    text = body["messages"][0]["content"][0]["text"]
    duration = float(re.search(r"segment of ([0-9.]+) seconds", text).group(1))
    half = duration / 2
    return json.dumps(
        {
            "global_static": {
                "environment": "indoor room",
                "architecture": "brick walls",
                "weather": "none",
                "lighting": "even",
                "time_of_day": "unknown",
                "season": "none",
                "perspective": "first_person",
                "composition": "walls, tiled floor, ceiling",
            },
            "local_static": [
                {"start_s": 0, "end_s": half, "text": "a brick wall ahead"},
                {"start_s": half, "end_s": duration, "text": "a corner of the room"},
            ],
            "dynamic_events": [{"start_s": 1.0, "end_s": 2.0, "text": "the camera turns left"}],
            "agent_actions": [
                {
                    "start_s": 0,
                    "end_s": duration,
                    "agent": "player",
                    "action": "walk",
                    "text": "the player walks while turning",
                }
            ],
        }
    )


def off_schema(body) -> str:
    return json.dumps({"caption": "a room"})


@pytest.fixture(scope="module")
def server():
    srv = FakeOpenAI()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def video(tmp_path_factory):
    return write_walkthrough(
        WalkSpec(seed=8, width=320, height=180, fps=15, shot_s=(6.0,)), tmp_path_factory.mktemp("walk")
    )


def _client(server, **kw):
    return CaptionClient(endpoint=server.url, model="vl", backoff_s=0.01, backoff_max_s=0.02, **kw)


def test_valid_caption_and_request(server, video, tmp_path):
    server.reset(caption_reply)
    rec = caption_segment(_client(server), video, 6.0, str(tmp_path / "c.json"))
    assert rec["status"] == "ok" and rec["caption"]["global_static"]["perspective"] == "first_person"
    body = server.requests[0]["body"]
    images = [c for c in body["messages"][0]["content"] if c["type"] == "image_url"]
    assert len(images) == 8 and body["response_format"]["json_schema"]["strict"] is True
    assert validate_caption(rec["attempts"][0]["raw"], 6.0).ok
    # resumes: the cached record answers without a request
    server.reset(caption_reply)
    assert caption_segment(_client(server), video, 6.0, str(tmp_path / "c.json"))["cached"] and not server.requests


def test_off_schema_retried_then_invalid(server, video, tmp_path):
    server.reset(off_schema, caption_reply)
    rec = caption_segment(_client(server), video, 6.0, str(tmp_path / "a.json"), schema_retries=2)
    assert rec["status"] == "ok" and len(rec["attempts"]) == 2 and rec["attempts"][0]["errors"]
    server.reset(off_schema)
    rec = caption_segment(_client(server), video, 6.0, str(tmp_path / "b.json"), schema_retries=1)
    assert (rec["status"], rec["reason"]) == ("invalid", "schema_invalid") and len(server.requests) == 2
    assert json.loads((tmp_path / "b.json").read_text())["attempts"][1]["raw"] == off_schema(None)


def test_times_outside_the_segment_are_off_schema():
    bad = json.loads(caption_reply({"messages": [{"content": [{"text": "segment of 6 seconds"}]}]}))
    bad["dynamic_events"][0]["end_s"] = 9.0
    check = validate_caption(json.dumps(bad), 6.0)
    assert not check.ok and "dynamic_events[0]" in check.errors[0]


def test_timeout_is_an_error_and_a_rerun_resumes(server, video, tmp_path):
    server.reset(("sleep", 1.0))
    path = tmp_path / "t.json"
    rec = caption_segment(_client(server, timeout_s=0.2, transport_retries=1), video, 6.0, str(path))
    assert (rec["status"], rec["reason"]) == ("error", "endpoint_unavailable") and not path.exists()
    server.reset(caption_reply)
    assert caption_segment(_client(server), video, 6.0, str(path))["status"] == "ok"


def test_caption_command(server, video, tmp_path):
    server.reset(caption_reply)
    out = tmp_path / "cap"
    assert main(["caption", video, "--output", str(out), "--endpoint", server.url, "--model", "vl"]) == 0
    rows = pq.read_table(out / "caption.parquet").to_pylist()
    assert [r["caption_status"] for r in rows] == ["ok"]
    assert json.loads(open(rows[0]["caption_path"]).read())["caption"]["local_static"]
