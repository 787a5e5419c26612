"""The removal service under real `serve.run` on the local Ray, over real HTTP on loopback.

One application for the module. It starts with dispatching off, so queued jobs stay queued
while the tests check admission (auth, 413/415/422/429, idempotency, cancel); then it is
restarted, as a redeploy would, with one job left `running` in the store as a crash leaves it,
and every accepted job must finish. The later tests run with dispatching on; the last restarts
it once more with its job store on a real PostgreSQL server.
"""

from __future__ import annotations

import io
import json
import os
import select
import socket
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import numpy as np
import pytest
import requests
from PIL import Image

from g2w.cases.case import Case
from g2w.jobs.remove import remove_one
from serve.local import Service
from tests.conftest import numbered_frame
from tests.serve.chromium import Browser, chromium_binary

TOKEN = "test-token-0123456789"
MAX_ACTIVE, PER_OWNER = 4, 3
# Long enough that propagate is still mid-clip when the cancel lands: the worker reports at most
# every 0.5 s, and the test only cancels after its first report. At 160x96 and 300 frames the
# rest of the clip took about 0.7 s, so on a loaded machine the job could finish unreported first.
LONG_FRAMES, LONG_SIZE = 600, (640, 384)  # about 8 s of propagate after the first report
MAX_PIXELS, MAX_FRAMES = 640 * 384, 1000  # the long clip is the largest the test service accepts


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, make_video_module, synth_out, edits):
    root = tmp_path_factory.mktemp("inputs")
    return {
        "root": str(root),
        "clip": make_video_module(str(root / "clip.mp4"), frames=20),
        "other": make_video_module(str(root / "other.mp4"), frames=12),
        "long": make_video_module(str(root / "long.mp4"), LONG_FRAMES, *LONG_SIZE),
        "cases": synth_out,
        "edited": edits["identity"],
    }


@pytest.fixture(scope="module")
def make_video_module():
    from g2w.video import VideoWriter

    def make(path, frames, width=160, height=96):
        with VideoWriter(path, width, height, 30) as writer:
            for i in range(frames):
                writer.write(numbered_frame(i, width, height))
        return path

    return make


@pytest.fixture(scope="module")
def service(ray_local, inputs, tmp_path_factory):
    data = tmp_path_factory.mktemp("serve_data")
    roots = ",".join((inputs["root"], inputs["cases"], inputs["edited"]))
    svc = Service(
        TOKEN,
        {
            "data-dir": str(data),
            "allowed-roots": roots,
            "max-upload-mb": "0.05",
            "max-active-jobs": str(MAX_ACTIVE),
            "max-active-per-owner": str(PER_OWNER),
            "dispatch": "false",
            "max-pixels": str(MAX_PIXELS),
            "max-frames": str(MAX_FRAMES),
            "max-duration-s": "60",
        },
    ).start()
    yield svc
    svc.stop()


def _submit(svc, path=None, method="identity", headers=None, **data):
    files = {"file": (os.path.basename(path), open(path, "rb").read())} if path else None
    return requests.post(
        f"{svc.url}/v1/removals",
        files=files,
        data={"method": method, **data},
        headers={**svc.headers, **(headers or {})},
        timeout=60,
    )


def _owner(svc, name: str) -> dict:
    """Request headers for a new key of owner `name` (as `g2w serve-keys create` makes one)."""
    from g2w.io import api_keys

    return {
        "Authorization": f"Bearer {api_keys.create_key(os.path.join(svc.args['data-dir'], 'jobs.sqlite'), name)['key']}"
    }


def _wait(
    svc,
    job_id,
    kind="removals",
    timeout_s=120,
    until=lambda job: job["state"] in ("succeeded", "failed", "canceled"),
    headers=None,
):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job = requests.get(f"{svc.url}/v1/{kind}/{job_id}", headers=headers or svc.headers, timeout=30).json()
        if until(job):
            return job
        time.sleep(0.1)
    raise AssertionError(f"{job_id} still {job['state']}: {job}")


def test_every_route_but_healthz_needs_the_token(service, inputs):
    assert requests.get(f"{service.url}/healthz", timeout=30).json()["ok"]
    page = requests.get(service.url + "/", timeout=30)
    assert page.status_code == 401 and "token" in page.text
    for method, path in (
        ("GET", "/v1/methods"),
        ("POST", "/v1/removals"),
        ("GET", "/v1/removals/job_" + "0" * 20),
        ("GET", "/v1/removals"),
        ("POST", "/v1/remove-frame"),
        ("GET", "/static/app.js"),
        ("POST", "/v1/batches"),
        ("GET", "/openapi.json"),
        ("GET", "/docs"),
        ("GET", "/v1/batches/batch_" + "0" * 20),
        ("DELETE", "/v1/evaluations/job_" + "0" * 20),
        ("GET", "/v1/detections/x/result/y"),
    ):
        resp = requests.request(method, service.url + path, headers={"Authorization": "Bearer wrong"}, timeout=30)
        assert resp.status_code == 401, path
    assert requests.get(f"{service.url}/v1/methods", timeout=30).status_code == 401
    listed = requests.get(f"{service.url}/v1/methods", headers=service.headers, timeout=30).json()["methods"]
    assert {"identity", "telea-gt"} <= {m["name"] for m in listed}
    spec = requests.get(f"{service.url}/openapi.json", headers=service.headers, timeout=30).json()
    assert {"/v1/removals", "/v1/removals/{job_id}/result/{name}", "/v1/evaluations"} <= set(spec["paths"])


def test_bad_requests_are_refused_before_queuing(service, inputs, tmp_path):
    big = tmp_path / "big.mp4"
    big.write_bytes(os.urandom(80_000))  # over max-upload-mb 0.05
    text = tmp_path / "notes.mp4"
    text.write_text("not a video at all\n" * 20)
    cases = [
        (_submit(service, str(big)), 413, "too_large"),
        (_submit(service, str(text)), 415, "container_not_allowed"),
        (_submit(service, inputs["clip"], method="no-such-method"), 422, "unknown_method"),
        (_submit(service, inputs["clip"], method="telea-gt"), 422, "method_needs_mask"),
        (_submit(service, inputs["clip"], options='{"radius": 3}'), 422, "bad_options"),
        (_submit(service, inputs["clip"], detect="maybe"), 422, "bad_options"),
        (_submit(service, uri="/etc/passwd"), 403, "uri_not_allowed"),
        (_submit(service, uri=os.path.join(inputs["root"], "..", "x.mp4")), 403, "uri_not_allowed"),
    ]
    for resp, status, reason in cases:
        assert (resp.status_code, resp.json()["error"]) == (status, reason), resp.text
    for path in ("/v1/removals/..%2F..%2Fetc", "/v1/removals/job_" + "0" * 20 + "/result/..%2Fjobs.sqlite"):
        assert requests.get(service.url + path, headers=service.headers, timeout=30).status_code == 404
    assert requests.get(f"{service.url}/healthz", timeout=30).json()["running"]["removal"] == 0  # nothing queued


def _listener():
    """A TCP listener on 127.0.0.1 that counts the connections it is offered."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.2)
    seen, stop = [], threading.Event()

    def accept():
        while not stop.is_set():
            try:
                seen.append(sock.accept()[0].recv(4096))
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    return sock, seen, stop


def test_attack_evaluation_cannot_reach_a_client_url_or_variable(service, inputs):
    sock, seen, stop = _listener()
    endpoint = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    url, form = f"{service.url}/v1/evaluations", {"cases": inputs["cases"], "edited": inputs["edited"]}
    try:
        for extra in (
            {"judge": "openai", "endpoint": endpoint, "model": "m", "api_key_env": "HOME"},
            {"judge": endpoint},
            {"endpoint": endpoint},
            {"api_key_env": "AWS_SECRET_ACCESS_KEY"},
        ):
            resp = requests.post(url, data={**form, **extra}, headers=service.headers, timeout=30)
            assert resp.status_code == 422 and resp.json()["error"] in ("bad_options", "unknown_judge"), resp.text
        time.sleep(0.5)
        assert seen == []
    finally:
        stop.set()
        sock.close()


def test_attack_playlists_concat_lists_and_images_are_not_videos(service, inputs, tmp_path):
    outside = tmp_path / "secret.mp4"  # outside the allowed roots
    outside.write_bytes(open(inputs["clip"], "rb").read())
    playlists = {
        "list.m3u8": f"#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile://{outside}\n#EXT-X-ENDLIST\n",
        "list.ffconcat": f"ffconcat version 1.0\nfile '{outside}'\n",
        "list.txt": f"file '{outside}'\n",
    }
    for name, text in playlists.items():
        inside = os.path.join(inputs["root"], name)
        with open(inside, "w") as f:
            f.write(text)
        for resp in (_submit(service, inside), _submit(service, uri=inside)):
            assert (resp.status_code, resp.json()["error"]) == (415, "container_not_allowed"), (name, resp.text)
            assert str(outside) not in resp.text and inputs["root"] not in resp.text
    png = io.BytesIO()
    Image.fromarray(numbered_frame(1, 64, 48)).save(png, format="PNG")
    resp = requests.post(
        f"{service.url}/v1/removals",
        data={"method": "identity"},
        headers=service.headers,
        files={"file": ("frame-%03d.png", png.getvalue())},
        timeout=30,
    )
    assert (resp.status_code, resp.json()["error"]) == (415, "container_not_allowed")


def test_attack_chunked_oversize_upload_is_cut_off_while_streaming(service, inputs):
    """A raw chunked upload (no Content-Length): the 413 must come while the client is still sending."""
    boundary, sent, answer = "b0undary", 0, b""
    jobs_dir = os.path.join(service.args["data-dir"], "jobs")
    before = sorted(os.listdir(jobs_dir))
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="method"\r\n\r\nidentity\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\n'
        "Content-Type: video/mp4\r\n\r\n"
    ).encode()
    chunk = b"\0" * (256 << 10)
    with socket.create_connection(("127.0.0.1", service.port), timeout=30) as conn:
        conn.sendall(
            (
                f"POST /v1/removals HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
                "Transfer-Encoding: chunked\r\n\r\n"
            ).encode()
            + b"%x\r\n%s\r\n" % (len(head), head)
        )
        while sent < 256 << 20 and not answer:  # up to 256 MB, far over the 0.05 MB limit
            try:
                conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break  # closed by the server after its answer
            sent += len(chunk)
            if select.select([conn], [], [], 0)[0]:
                answer = conn.recv(65536)
        deadline = time.monotonic() + 30
        while b"too_large" not in answer and time.monotonic() < deadline:
            answer += conn.recv(65536)
    assert answer.startswith(b"HTTP/1.1 413") and b"too_large" in answer, answer[:300]
    assert sent < 64 << 20, sent  # answered long before the end: the body was never read whole
    assert sorted(os.listdir(jobs_dir)) == before


def test_attack_decode_bombs_are_refused_from_the_headers(service, inputs, make_video_module, tmp_path):
    huge = make_video_module(str(tmp_path / "huge.mp4"), 1, 4096, 2304)  # one black-ish frame: a few KB
    many = make_video_module(str(tmp_path / "many.mp4"), MAX_FRAMES + 200, 16, 16)
    for path, reason in ((huge, "too_many_pixels"), (many, "too_many_frames")):
        assert os.path.getsize(path) < 50_000  # under the upload limit: only the declared cost is too high
        resp = _submit(service, path)
        assert (resp.status_code, resp.json()["error"]) == (413, reason), resp.text
    for options, word in (
        ('{"radius": 10000}', "radius"),
        ('{"preset": "placebo"}', "preset"),
        ('{"checkpoint": "/etc/passwd"}', "checkpoint"),
        ('{"mask": "gt"}', "mask"),
    ):
        resp = _submit(service, inputs["clip"], method="telea", options=options)
        assert (resp.status_code, resp.json()["error"]) == (422, "bad_options") and word in resp.json()["message"]


def test_attack_foreign_owner_sees_no_job_and_keys_can_be_revoked(service, inputs, capsys):
    from g2w.cli import main

    state = service.args["data-dir"]
    assert main(["serve-keys", "--state-dir", state, "create", "--owner", "alice"]) == 0
    alice = json.loads(capsys.readouterr().out)
    mine = _submit(service, inputs["clip"], headers={"Idempotency-Key": "same"})
    assert mine.status_code == 202
    as_alice = {"Authorization": f"Bearer {alice['key']}"}
    base = f"{service.url}/v1/removals/{mine.json()['id']}"
    for method, path in (("GET", ""), ("DELETE", ""), ("GET", "/source"), ("GET", "/result/edited.mp4")):
        resp = requests.request(method, base + path, headers=as_alice, timeout=30)
        assert (resp.status_code, resp.json()["error"]) == (404, "not_found"), path
    # Idempotency keys are per owner, and carry the payload: another payload under the same key is 422.
    theirs = requests.post(
        f"{service.url}/v1/removals",
        data={"method": "identity"},
        headers={**as_alice, "Idempotency-Key": "same"},
        files={"file": ("clip.mp4", open(inputs["clip"], "rb").read())},
        timeout=60,
    )
    assert theirs.status_code == 202 and theirs.json()["id"] != mine.json()["id"]
    assert "Idempotent-Replayed" not in theirs.headers
    changed = _submit(service, inputs["other"], headers={"Idempotency-Key": "same"})
    assert (changed.status_code, changed.json()["error"]) == (422, "idempotency_key_reused")
    assert (
        requests.get(f"{service.url}/v1/removals/{theirs.json()['id']}", headers=as_alice, timeout=30).status_code
        == 200
    )
    for job_id, headers in ((mine.json()["id"], service.headers), (theirs.json()["id"], as_alice)):
        assert requests.delete(f"{service.url}/v1/removals/{job_id}", headers=headers, timeout=30).status_code == 200
    assert main(["serve-keys", "--state-dir", state, "list"]) == 0
    listed = capsys.readouterr().out
    assert alice["id"] in listed and alice["key"] not in listed
    assert main(["serve-keys", "--state-dir", state, "revoke", alice["id"]]) == 0
    assert requests.get(f"{service.url}/v1/methods", headers=as_alice, timeout=30).status_code == 401


def test_attack_session_cookie_replayed_from_another_origin(service, inputs):
    signed = requests.post(f"{service.url}/v1/session", headers=service.headers, timeout=30)
    assert signed.status_code == 204
    cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Max-Age=" in cookie
    assert TOKEN not in cookie and "Secure" not in cookie  # plain HTTP here; Secure over TLS
    over_tls = requests.post(
        f"{service.url}/v1/session", headers={**service.headers, "X-Forwarded-Proto": "https"}, timeout=30
    )
    assert "Secure" in over_tls.headers["set-cookie"]
    jar = {"g2w_session": signed.cookies["g2w_session"]}
    assert requests.get(f"{service.url}/v1/methods", cookies=jar, timeout=30).status_code == 200
    clip = open(inputs["clip"], "rb").read()
    for origin in ({"Origin": "http://evil.example"}, {}, {"Origin": "null"}):
        resp = requests.post(
            f"{service.url}/v1/removals",
            cookies=jar,
            headers=origin,
            data={"method": "identity"},
            files={"file": ("clip.mp4", clip)},
            timeout=60,
        )
        assert (resp.status_code, resp.json()["error"]) == (403, "cross_origin"), origin
    same = requests.post(
        f"{service.url}/v1/removals",
        cookies=jar,
        headers={"Origin": service.url},
        data={"method": "identity"},
        files={"file": ("clip.mp4", clip)},
        timeout=60,
    )
    assert same.status_code == 202
    requests.delete(
        f"{service.url}/v1/removals/{same.json()['id']}", cookies=jar, headers={"Origin": service.url}, timeout=30
    )
    out = requests.delete(f"{service.url}/v1/session", cookies=jar, headers={"Origin": service.url}, timeout=30)
    assert out.status_code == 204
    assert requests.get(f"{service.url}/v1/methods", cookies=jar, timeout=30).status_code == 401


def _db_jobs(svc, where: str, *args) -> list:
    with sqlite3.connect(os.path.join(svc.args["data-dir"], "jobs.sqlite")) as db:
        return [r[0] for r in db.execute(f"SELECT id FROM jobs WHERE {where}", args)]


def test_attack_concurrent_requests_cannot_pass_admission_or_split_a_key(service, inputs):
    """Parallel POSTs over real HTTP: one Idempotency-Key makes one job, whichever payload wins the
    race; an owner's cap is never passed; two racing batches under one key make one batch."""
    bob = _owner(service, "bob")
    clip, other = open(inputs["clip"], "rb").read(), open(inputs["other"], "rb").read()
    jobs_dir = os.path.join(service.args["data-dir"], "jobs")
    before = set(os.listdir(jobs_dir))

    def post(args):
        key, data = args
        return requests.post(
            f"{service.url}/v1/removals",
            data={"method": "identity"},
            files={"file": ("c.mp4", data)},
            headers={**bob, "Idempotency-Key": key},
            timeout=120,
        )

    with ThreadPoolExecutor(8) as pool:
        same = list(pool.map(post, [("one", clip)] * 8))
        split = list(pool.map(post, [("two", clip if i % 2 else other) for i in range(8)]))
    assert [r.status_code for r in same] == [202] * 8 and len({r.json()["id"] for r in same}) == 1
    assert sum("Idempotent-Replayed" not in r.headers for r in same) == 1
    won = [r for r in split if r.status_code == 202]
    assert len({r.json()["id"] for r in won}) == 1, [r.text for r in split]
    assert all((r.status_code, r.json()["error"]) == (422, "idempotency_key_reused") for r in split if r not in won)
    assert len(set(os.listdir(jobs_dir)) - before) == 2  # no folder left by a request that lost
    with ThreadPoolExecutor(8) as pool:
        many = list(pool.map(post, [(f"k{i}", clip) for i in range(8)]))
    assert sorted(r.status_code for r in many) == [202] * (PER_OWNER - 2) + [429] * (8 - PER_OWNER + 2)
    assert {r.json()["error"] for r in many if r.status_code == 429} == {"owner_queue_full"}
    active = _db_jobs(service, "owner = 'bob' AND state IN ('queued', 'running')")
    assert len(active) == PER_OWNER and len(set(os.listdir(jobs_dir)) - before) == PER_OWNER
    for job_id in active:
        requests.delete(f"{service.url}/v1/removals/{job_id}", headers=bob, timeout=30)

    lines = "\n".join(json.dumps({"uri": inputs["other"], "method": "identity"}) for _ in range(2)).encode()
    with ThreadPoolExecutor(6) as pool:
        batches = list(
            pool.map(
                lambda _: requests.post(
                    f"{service.url}/v1/batches",
                    files={"file": ("b.jsonl", lines)},
                    headers={**bob, "Idempotency-Key": "b"},
                    timeout=120,
                ),
                range(6),
            )
        )
    assert [r.status_code for r in batches] == [202] * 6, [r.text for r in batches]
    assert len({r.json()["id"] for r in batches}) == 1
    made = _db_jobs(service, "owner = 'bob' AND batch_id IS NOT NULL")
    assert sorted(made) == sorted(i["job_id"] for i in batches[0].json()["items"])  # no orphans
    for job_id in made:
        requests.delete(f"{service.url}/v1/removals/{job_id}", headers=bob, timeout=30)


def test_idempotent_resubmit_full_queue_and_cancel(service, inputs):
    first = _submit(service, inputs["clip"], headers={"Idempotency-Key": "k-1"})
    again = _submit(service, inputs["clip"], headers={"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 202
    assert again.json()["id"] == first.json()["id"] and again.headers["Idempotent-Replayed"] == "true"
    assert first.json()["state"] == "queued" and first.json()["progress"]["frames_total"] == 20
    ids = [first.json()["id"]] + [_submit(service, uri=inputs["other"]).json()["id"] for _ in range(PER_OWNER - 1)]
    mine_full = _submit(service, inputs["clip"])
    assert (mine_full.status_code, mine_full.json()["error"]) == (429, "owner_queue_full")
    carol = _owner(service, "carol")
    theirs = [_submit(service, uri=inputs["other"], headers=carol) for _ in range(MAX_ACTIVE - PER_OWNER + 1)]
    assert [r.status_code for r in theirs] == [202] * (MAX_ACTIVE - PER_OWNER) + [429]
    assert theirs[-1].json()["error"] == "queue_full" and int(theirs[-1].headers["Retry-After"]) > 0
    for resp in theirs[:-1]:
        requests.delete(f"{service.url}/v1/removals/{resp.json()['id']}", headers=carol, timeout=30)
    canceled = requests.delete(f"{service.url}/v1/removals/{ids[-1]}", headers=service.headers, timeout=30).json()
    assert canceled["state"] == "canceled"
    assert _submit(service, inputs["clip"]).status_code == 202  # room again
    service.accepted = ids[:-1]
    service.canceled = ids[-1]


def test_restart_with_a_job_in_flight_loses_nothing(service):
    # The app goes away while one job is `running`, as a crash mid-removal leaves it.
    db = sqlite3.connect(os.path.join(service.args["data-dir"], "jobs.sqlite"))
    db.execute("UPDATE jobs SET state = 'running', attempts = 1 WHERE id = ?", (service.accepted[0],))
    db.commit()
    db.close()
    service.restart(dispatch="true")
    assert requests.get(f"{service.url}/healthz", timeout=30).json()["recovered"]["requeued"] == 1
    done = [_wait(service, job_id) for job_id in service.accepted]
    assert [j["state"] for j in done] == ["succeeded"] * len(done)
    assert done[0]["attempts"] == 2
    assert _wait(service, service.canceled)["state"] == "canceled"


def test_result_bytes_equal_the_remove_job(service, inputs, tmp_path):
    job = _wait(service, _submit(service, inputs["clip"]).json()["id"])
    assert job["state"] == "succeeded" and job["progress"]["frames_done"] == 20
    served = requests.get(service.url + job["results"]["edited.mp4"], headers=service.headers, timeout=30)
    case = Case(case_id="clip", split="wild", source=inputs["clip"], annotation="")
    row = remove_one("identity", case, str(tmp_path))  # what `g2w remove --method identity` writes per case
    assert served.status_code == 200 and served.content == open(row["path"], "rb").read()
    missing = requests.get(
        f"{service.url}/v1/removals/{job['id']}/result/mask.mkv", headers=service.headers, timeout=30
    )
    assert missing.status_code == 404


def _stamp(text: str) -> datetime:
    assert text.endswith("Z"), text  # RFC 3339 in UTC
    return datetime.fromisoformat(text[:-1] + "+00:00")


def test_lists_are_the_owners_newest_first_paged_by_cursor(service, inputs):
    ann, bob = _owner(service, "lister-ann"), _owner(service, "lister-bob")
    ids = [_submit(service, inputs["clip"], headers=ann).json()["id"] for _ in range(3)]
    _submit(service, inputs["clip"], headers=bob)
    first = requests.get(f"{service.url}/v1/removals?limit=2", headers=ann, timeout=30).json()
    second = requests.get(
        f"{service.url}/v1/removals", params={"limit": 2, "cursor": first["next_cursor"]}, headers=ann, timeout=30
    ).json()
    assert [j["id"] for j in first["items"] + second["items"]] == ids[::-1] and second["next_cursor"] is None
    assert requests.get(f"{service.url}/v1/detections", headers=ann, timeout=30).json() == {
        "items": [],
        "next_cursor": None,
    }
    assert requests.get(f"{service.url}/v1/batches", headers=ann, timeout=30).json()["items"] == []
    for bad in ({"cursor": "not-a-cursor"}, {"limit": 0}, {"limit": 101}):
        assert requests.get(f"{service.url}/v1/removals", params=bad, headers=ann, timeout=30).status_code == 422, bad
    done = [_wait(service, job_id, headers=ann) for job_id in ids]
    for job in done:
        assert job["state"] == "succeeded"
        created, started, finished = (_stamp(job[k]) for k in ("created_at", "started_at", "finished_at"))
        assert created <= started <= finished
        assert (_stamp(job["expires_at"]) - finished).total_seconds() == pytest.approx(7 * 86400, abs=0.01)
    assert ids[0] not in {
        j["id"] for j in requests.get(f"{service.url}/v1/removals?limit=100", headers=bob, timeout=30).json()["items"]
    }


def test_attack_traversal_on_a_real_succeeded_job(service, inputs):
    job = _wait(service, _submit(service, inputs["clip"]).json()["id"])
    assert job["state"] == "succeeded"
    base = f"{service.url}/v1/removals/{job['id']}"
    for tail in (
        "/result/..%2F..%2Fjobs.sqlite",
        "/result/..%2Fsource.mp4",
        "/result/source.mp4",
        "/result/%2Fetc%2Fpasswd",
        "/result/edited.mp4%00.png",
        "/result/mask.mkv",
        "/../../jobs.sqlite",
    ):
        resp = requests.get(base + tail, headers=service.headers, timeout=30)
        assert resp.status_code == 404, tail
        assert service.args["data-dir"] not in resp.text
    served = requests.get(base + "/result/edited.mp4", headers=service.headers, timeout=30)
    source = requests.get(base + "/source", headers=service.headers, timeout=30)
    for resp, ctype in ((served, "video/mp4"), (source, "video/mp4")):
        assert resp.status_code == 200 and resp.headers["content-type"] == ctype
        assert resp.headers["x-content-type-options"] == "nosniff"
        assert resp.headers["content-disposition"].startswith("attachment")


def test_running_removal_reports_progress_and_cancel_stops_it(service, inputs):
    job_id = _submit(service, uri=inputs["long"], method="propagate").json()["id"]
    running = _wait(service, job_id, until=lambda j: j["state"] != "queued" and j["progress"]["frames_done"] > 0)
    assert running["state"] == "running" and running["progress"]["frames_total"] == LONG_FRAMES
    cancelling = requests.delete(f"{service.url}/v1/removals/{job_id}", headers=service.headers, timeout=30).json()
    assert cancelling["state"] == "cancelling" and cancelling["finished_at"] is None
    # The worker hears "canceled" at its next report and stops; the ingress notes where.
    stopped = _wait(service, job_id)
    assert stopped["state"] == "canceled" and stopped["message"].startswith("the method stopped"), stopped
    done = int(stopped["message"].split()[4])
    assert 0 < done < LONG_FRAMES and stopped["results"] == {}
    health = requests.get(f"{service.url}/healthz", timeout=30).json()
    assert health["running"]["removal"] == 0
    # Read from Serve: one CPU Remover replica running one clip at a time, one Judge; the settings'
    # max-running (8) never lets the dispatcher park more calls than that in Serve's queue.
    assert health["slots"]["cpu"] == 1 and health["slots"]["evaluation"] == 1, health


def test_evaluation_job_runs_the_reference_judge(service, inputs):
    url, form = f"{service.url}/v1/evaluations", {"cases": inputs["cases"], "edited": inputs["edited"]}
    refused = [
        (
            requests.post(url, data={**form, "judge": "oracle"}, headers=service.headers, timeout=30),
            422,
            "unknown_judge",
        ),
        (
            requests.post(url, data={**form, "judge": "openai"}, headers=service.headers, timeout=30),
            422,
            "unknown_judge",
        ),
        (
            requests.post(url, data={**form, "edited": "/etc"}, headers=service.headers, timeout=30),
            403,
            "uri_not_allowed",
        ),
        (
            requests.post(url, data={**form, "cases": inputs["clip"]}, headers=service.headers, timeout=30),
            422,
            "bad_cases",
        ),
        (requests.post(url, data=form, timeout=30), 401, "unauthorized"),
    ]
    for resp, status, reason in refused:
        assert (resp.status_code, resp.json()["error"]) == (status, reason), resp.text
    key = {"Idempotency-Key": "eval-1"}
    first = requests.post(url, data={**form, "judge": "reference"}, headers={**service.headers, **key}, timeout=30)
    again = requests.post(url, data={**form, "judge": "reference"}, headers={**service.headers, **key}, timeout=30)
    assert first.status_code == again.status_code == 202 and again.json()["id"] == first.json()["id"]
    job = _wait(service, first.json()["id"], kind="evaluations", timeout_s=240)
    assert job["state"] == "succeeded", job
    assert (job["summary"]["cases"], job["summary"]["ok"]) == (2, 2)
    metrics = requests.get(service.url + job["results"]["metrics.json"], headers=service.headers, timeout=30).json()
    syn = metrics["splits"]["synthetic"]
    assert syn["AAR"] == 0.0 and syn["per_video"]["s000"]["BG"] == 100.0  # identity edits: nothing removed
    assert "report.html" in job["results"] and "judgments.jsonl" in job["results"]


def test_detection_job_runs_the_shipped_segmenter(service, inputs, tmp_path):
    from g2w.jobs.detect import detect_file

    assert requests.get(f"{service.url}/v1/methods", headers=service.headers, timeout=30).json()["detector"]
    files = {"file": ("clip.mp4", open(inputs["clip"], "rb").read())}
    resp = requests.post(f"{service.url}/v1/detections", files=files, headers=service.headers, timeout=60)
    assert resp.status_code == 202, resp.text
    job = _wait(service, resp.json()["id"], kind="detections", timeout_s=180)  # the Detector scales up from zero
    assert job["state"] == "succeeded", job
    assert sorted(job["results"]) == ["annotation.json", "mask.mkv", "preview.png"]
    assert job["progress"]["frames_done"] == job["progress"]["frames_total"] == 20
    served = requests.get(service.url + job["results"]["annotation.json"], headers=service.headers, timeout=30)
    detect_file(inputs["clip"], str(tmp_path / "local"))  # what `g2w detect` writes for the same clip
    assert served.json() == json.loads((tmp_path / "local" / "annotation.json").read_text())
    assert (
        requests.get(f"{service.url}/v1/removals/{job['id']}", headers=service.headers, timeout=30).status_code == 404
    )


def test_batch_and_single_frame(service, inputs):
    lines = [
        json.dumps({"uri": inputs["other"], "method": "identity"}),
        json.dumps({"uri": inputs["clip"], "method": "nope"}),
        "{broken",
    ]
    resp = requests.post(
        f"{service.url}/v1/batches",
        headers=service.headers,
        timeout=60,
        files={"file": ("items.jsonl", "\n".join(lines).encode())},
    )
    assert resp.status_code == 202, resp.text
    batch = resp.json()
    assert [i["state"] for i in batch["items"]] == ["queued", "rejected", "rejected"]
    assert _wait(service, batch["items"][0]["job_id"])["state"] == "succeeded"
    batch = requests.get(f"{service.url}/v1/batches/{batch['id']}", headers=service.headers, timeout=30).json()
    assert batch["done"] and batch["counts"] == {"succeeded": 1, "rejected": 2}

    image = numbered_frame(5, 64, 48)
    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format="PNG")
    resp = requests.post(
        f"{service.url}/v1/remove-frame",
        headers=service.headers,
        data={"method": "identity"},
        files={"file": ("f.png", buf.getvalue())},
        timeout=120,
    )
    assert resp.status_code == 200 and resp.headers["content-type"] == "image/png"
    out = np.asarray(Image.open(io.BytesIO(resp.content)))
    assert out.shape == image.shape and np.abs(out.astype(int) - image).mean() < 3  # crf 0, yuv420p chroma
    bad = requests.post(
        f"{service.url}/v1/remove-frame",
        headers=service.headers,
        data={"method": "identity"},
        files={"file": ("f.png", b"GIF? no")},
        timeout=30,
    )
    assert bad.status_code == 415


def test_submit_removal_command_uploads_polls_and_downloads(service, inputs, tmp_path, capsys):
    from g2w.cli import main

    code = main(
        [
            "submit-removal",
            inputs["clip"],
            "--url",
            service.url,
            "--token",
            TOKEN,
            "--method",
            "identity",
            "--output",
            str(tmp_path),
            "--detect",
        ]
    )
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 0 and line["state"] == "succeeded"
    assert open(tmp_path / "clip" / "edited.mp4", "rb").read() == open(inputs["clip"], "rb").read()
    assert sorted(os.listdir(tmp_path / "clip")) == ["annotation.json", "edited.mp4", "mask.mkv", "preview.png"]
    assert json.loads((tmp_path / "clip" / "annotation.json").read_text())["frame_count"] == 20
    assert main(["submit-removal", inputs["clip"], "--url", service.url, "--token", "wrong"]) == 1


@pytest.mark.skipif(chromium_binary() is None, reason="Debian's chromium is not installed (scripts/system-deps.sh)")
def test_page_in_headless_chromium(service, inputs):
    """Sign in, upload a clip (detection on, the default), watch it finish, see source, edit and mask."""
    artifacts = os.environ.get("G2W_TEST_ARTIFACTS", os.path.join(os.getcwd(), "test_artifacts"))
    os.makedirs(artifacts, exist_ok=True)
    browser = Browser(chromium_binary())
    try:
        browser.goto(service.url + "/")
        browser.eval(f"document.getElementById('token').value = {json.dumps(TOKEN)}")
        browser.eval("document.getElementById('login').requestSubmit()")
        browser.wait_for("document.getElementById('method') && document.getElementById('method').options.length > 0")
        assert "identity" in browser.eval("[...document.getElementById('method').options].map(o => o.value)")
        browser.set_file("#file", inputs["clip"])
        browser.eval("document.getElementById('method').value = 'identity'")
        browser.eval("document.getElementById('submit').requestSubmit()")
        browser.wait_for("document.querySelector('#jobs td.state')?.textContent === 'succeeded'")
        browser.wait_for("!document.getElementById('viewer').hidden")
        browser.wait_for(
            "document.getElementById('edited').readyState >= 2 && "
            "document.getElementById('source').readyState >= 2 && "
            "document.getElementById('mask-preview').complete && "
            "document.getElementById('mask-preview').naturalWidth > 0"
        )  # both videos and the mask shown
        assert browser.eval("document.querySelector('#jobs .frames').textContent") == "20/20"
        links = browser.eval("[...document.querySelectorAll('#downloads a')].map(a => a.textContent.trim())")
        assert links == ["Download edited.mp4", "Download mask.mkv", "Download annotation.json", "Download preview.png"]
        browser.screenshot(os.path.join(artifacts, "serve_page.png"))
        job_id = browser.eval("document.querySelector('#jobs tbody tr').dataset.id")
        browser.goto(service.url + "/")  # a reload lists the owner's jobs again, from the service
        browser.wait_for(
            f"document.querySelector('#jobs tr[data-id=\"{job_id}\"] td.state')?.textContent === 'succeeded'"
        )
    finally:
        browser.close()
    with Image.open(os.path.join(artifacts, "serve_page.png")) as shot:
        assert shot.size[0] >= 800


def test_bounded_load_on_loopback_has_no_server_errors(service, inputs):
    """200 requests, 16 at a time: submissions (some answered 429) and status reads."""
    job_id = _submit(service, uri=inputs["other"]).json()["id"]

    def one(i):
        if i % 4 == 0:
            return _submit(service, uri=inputs["other"]).status_code
        return requests.get(f"{service.url}/v1/removals/{job_id}", headers=service.headers, timeout=60).status_code

    with ThreadPoolExecutor(16) as pool:
        codes = list(pool.map(one, range(200)))
    assert not [c for c in codes if c >= 500]
    assert set(codes) <= {200, 202, 429} and codes.count(200) == 150


def test_results_in_an_object_store_are_served_from_it(service, inputs, s3_bucket):
    """Restarted with output-store on the moto bucket: the workers publish there, the API streams back."""
    from g2w.io import storage

    service.restart(**{"output-store": s3_bucket})
    job = _wait(service, _submit(service, inputs["clip"], detect="true").json()["id"])
    assert job["state"] == "succeeded" and sorted(job["results"]) == [
        "annotation.json",
        "edited.mp4",
        "mask.mkv",
        "preview.png",
    ]
    served = requests.get(service.url + job["results"]["edited.mp4"], headers=service.headers, timeout=30)
    stored = storage.read_bytes(f"{s3_bucket}/{job['id']}/edited.mp4")
    assert served.status_code == 200 and served.content == stored == open(inputs["clip"], "rb").read()
    mask = requests.get(service.url + job["results"]["mask.mkv"], headers=service.headers, timeout=30)
    assert mask.content == storage.read_bytes(f"{s3_bucket}/{job['id']}/detection/mask.mkv")


def test_delete_and_retention_remove_files_and_records_and_a_full_disk_is_507(service, inputs):
    """Restarts with a one-second retention (the test after it restarts once more). A finished job's DELETE removes
    its folder, its published results and its record; another owner cannot; retention does the
    same to every finished job once it is old enough; and a disk below the floor refuses new work."""
    from g2w.io import storage

    s3_bucket = service.args["output-store"]  # the bucket the test before restarted the service with
    jobs_dir = os.path.join(service.args["data-dir"], "jobs")
    job = _wait(service, _submit(service, inputs["clip"]).json()["id"])
    assert job["state"] == "succeeded" and os.path.isdir(os.path.join(jobs_dir, job["id"]))
    url = f"{service.url}/v1/removals/{job['id']}"
    assert requests.delete(url, headers=_owner(service, "intruder"), timeout=30).status_code == 404
    assert storage.exists(f"{s3_bucket}/{job['id']}/edited.mp4")
    assert requests.delete(url, headers=service.headers, timeout=30).status_code == 204
    assert not os.path.exists(os.path.join(jobs_dir, job["id"]))
    assert not storage.exists(f"{s3_bucket}/{job['id']}/edited.mp4")
    assert requests.get(url, headers=service.headers, timeout=30).status_code == 404
    assert requests.delete(url, headers=service.headers, timeout=30).status_code == 404

    kept = _wait(service, _submit(service, inputs["clip"]).json()["id"])
    assert kept["state"] == "succeeded"
    service.restart(**{"retention-s": "1", "min-free-disk-mb": str(1 << 40)})
    full = _submit(service, inputs["clip"])
    assert (full.status_code, full.json()["error"]) == (507, "insufficient_storage") and full.headers["retry-after"]
    assert service.args["data-dir"] not in full.text
    deadline = time.monotonic() + 30
    while (
        requests.get(f"{service.url}/v1/removals/{kept['id']}", headers=service.headers, timeout=30).status_code != 404
    ):
        assert time.monotonic() < deadline, "retention did not delete a job finished over a second ago"
        time.sleep(0.2)
    assert not os.path.exists(os.path.join(jobs_dir, kept["id"]))
    assert not storage.exists(f"{s3_bucket}/{kept['id']}/edited.mp4")
    assert (
        requests.get(f"{service.url}/v1/removals?limit=100", headers=service.headers, timeout=30).json()["items"] == []
    )


def test_store_on_postgresql_over_http(service, inputs, pg_url, capsys):
    """Last in the module: restarted with `store-url` on a real PostgreSQL server, as a deployment
    whose ingress may move runs it. Keys made by `g2w serve-keys --store-url` work; a redeploy finds
    one job `running` with its lease expired (requeued, run again) and one whose worker still renews
    its lease (left to it: no second writer); the removal succeeds and is listed for its owner only,
    and its rows are in PostgreSQL, not in jobs.sqlite."""
    import psycopg

    from g2w.cli import main

    pg = {"store-url": pg_url, "retention-s": "0", "min-free-disk-mb": "0"}
    service.restart(**pg, dispatch="false")
    keys = {}
    for owner in ("dana", "mallory"):
        assert main(["serve-keys", "--store-url", pg_url, "create", "--owner", owner]) == 0
        keys[owner] = {"Authorization": f"Bearer {json.loads(capsys.readouterr().out)['key']}"}
    ids = []
    for clip in (inputs["clip"], inputs["other"]):
        resp = _submit(service, clip, headers=keys["dana"])
        assert resp.status_code == 202, resp.text
        ids.append(resp.json()["id"])
    lost, leased = ids
    with psycopg.connect(pg_url) as db:  # as a crash leaves them: one worker gone, one still renewing
        db.execute("UPDATE jobs SET state = 'running', attempts = 1, lease_until = NULL WHERE id = %s", (lost,))
        db.execute(
            "UPDATE jobs SET state = 'running', attempts = 1, lease_until = %s WHERE id = %s",
            (time.time() + 3600, leased),
        )
    service.restart(**pg, dispatch="true")
    assert requests.get(f"{service.url}/healthz", timeout=30).json()["recovered"] == {"requeued": 1, "failed": 0}
    job = _wait(service, lost, headers=keys["dana"])
    assert job["state"] == "succeeded" and job["attempts"] == 2 and job["progress"]["frames_done"] == 20, job
    still = requests.get(f"{service.url}/v1/removals/{leased}", headers=keys["dana"], timeout=30).json()
    assert (still["state"], still["attempts"]) == ("running", 1), still
    edited = requests.get(service.url + job["results"]["edited.mp4"], headers=keys["dana"], timeout=30)
    assert edited.content == open(inputs["clip"], "rb").read()  # identity: the upload, byte for byte
    listed = requests.get(f"{service.url}/v1/removals", headers=keys["dana"], timeout=30).json()
    assert [j["id"] for j in listed["items"]] == [leased, lost] and listed["next_cursor"] is None
    as_mallory = f"{service.url}/v1/removals/{lost}"
    for method, url in (("GET", as_mallory), ("GET", as_mallory + "/result/edited.mp4"), ("DELETE", as_mallory)):
        resp = requests.request(method, url, headers=keys["mallory"], timeout=30)
        assert (resp.status_code, resp.json()["error"]) == (404, "not_found"), (method, url)
    assert requests.get(f"{service.url}/v1/removals", headers=keys["mallory"], timeout=30).json()["items"] == []
    with psycopg.connect(pg_url) as db:
        rows = db.execute("SELECT id, owner, state FROM jobs ORDER BY id").fetchall()
        owners = sorted(r[0] for r in db.execute("SELECT owner FROM api_keys WHERE revoked IS NULL"))
    assert rows == sorted([(lost, "dana", "succeeded"), (leased, "dana", "running")]) and owners == ["dana", "mallory"]
    assert _db_jobs(service, "id = ?", lost) == []  # the SQLite file of the earlier tests never saw it
