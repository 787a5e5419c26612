"""HTTP helpers of the API: bounded form reading, job views, error answers.

The request body is counted while it streams in, so an oversize upload (chunked ones too, which
declare no length) is refused after at most the limit has been read, never after spooling it whole.
Answers never carry the server's paths: `scrub` replaces them in every message that leaves.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import shutil
from datetime import UTC, datetime

from fastapi import Request
from fastapi.responses import JSONResponse

from g2w.video import VideoError, probe
from serve.containers import check_cost
from serve.inputs import InputError
from serve.settings import ServiceSettings

FORM_SLACK_BYTES = 1 << 20  # multipart headers and small fields on top of the file itself


def scrub(text: str, paths) -> str:
    """`text` with each of the server's `paths` (longest first) replaced by a neutral name."""
    for path in sorted((p for p in paths if p), key=len, reverse=True):
        text = text.replace(path, "<server>")
    return text


def error(status: int, reason: str, message: str, headers: dict | None = None) -> JSONResponse:
    return JSONResponse({"error": reason, "message": message}, status_code=status, headers=headers)


async def read_form(request: Request, settings: ServiceSettings):
    """The multipart form, refusing a body over the upload limit as soon as that much has arrived."""
    limit = settings.max_upload_bytes + FORM_SLACK_BYTES
    length = request.headers.get("content-length")
    if length and length.isdigit() and int(length) > limit:
        raise InputError(413, "too_large", f"request of {length} bytes is over {settings.max_upload_mb} MB")
    received = 0

    async def counted():
        nonlocal received
        message = await request.receive()
        received += len(message.get("body", b""))
        if received > limit:
            raise InputError(413, "too_large", f"request body is over {settings.max_upload_mb} MB")
        return message

    form = await Request(request.scope, counted).form(max_files=1, max_fields=32)
    upload = form.get("file")
    if upload is not None and not isinstance(upload, str) and (upload.size or 0) > settings.max_upload_bytes:
        raise InputError(413, "too_large", f"upload of {upload.size} bytes is over {settings.max_upload_mb} MB")
    return form


def fingerprint(form) -> str:
    """A digest of what a request asks for: every field, and the uploaded bytes (streamed)."""
    h = hashlib.sha256()
    for name in sorted(set(form.keys())):
        value = form.get(name)
        h.update(name.encode() + b"\0")
        if isinstance(value, str):
            h.update(value.encode() + b"\0")
            continue
        value.file.seek(0)
        while chunk := value.file.read(1 << 20):
            h.update(chunk)
        value.file.seek(0)
    return h.hexdigest()


async def save_upload(upload, path: str) -> None:
    def copy():
        upload.file.seek(0)
        with open(path + ".partial", "wb") as out:
            shutil.copyfileobj(upload.file, out, 1 << 20)
        os.replace(path + ".partial", path)

    await asyncio.to_thread(copy)


async def probe_video(path: str, settings: ServiceSettings) -> int:
    """The clip's frame count after its container and decode cost pass (serve/containers.py);
    InputError 415 if it is not an allowed, decodable video, 413 if it costs too much."""
    limits = (settings.max_pixels, settings.max_frames, settings.max_duration_s)
    await asyncio.to_thread(check_cost, path, *limits)
    try:
        info = await asyncio.to_thread(probe, path, False)
    except VideoError as exc:
        raise InputError(415, f"not_video_{exc.reason}", str(exc).replace(path, "input")) from exc
    if not info.has_video:
        raise InputError(415, "not_video_no_video_stream", "the input has no video stream")
    if info.frame_count > settings.max_frames:
        raise InputError(
            413, "too_many_frames", f"{info.frame_count} frames is over the limit of {settings.max_frames}"
        )
    return int(info.frame_count)


def rfc3339(t: float | None) -> str | None:
    """An epoch time as RFC 3339 in UTC, to the millisecond (None stays None)."""
    if t is None:
        return None
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_cursor(created: float, item_id: str) -> str:
    """The opaque cursor of a list page: where the next page starts (after this item)."""
    return base64.urlsafe_b64encode(json.dumps([created, item_id]).encode()).decode().rstrip("=")


def read_cursor(cursor: str | None) -> tuple[float, str] | None:
    if not cursor:
        return None
    try:
        created, item_id = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return float(created), str(item_id)
    except (ValueError, TypeError) as exc:
        raise InputError(422, "bad_cursor", "cursor is not one this service gave out") from exc


def job_view(job: dict, prefix: str, retention_s: float = 0.0) -> dict:
    """A job as clients see it: never the server's paths. A finished job expires (its files and
    record are deleted) `retention_s` after it finished; 0 keeps it."""
    p = job["params"]
    expires = job["finished"] + retention_s if job.get("finished") and retention_s > 0 else None
    return {
        "id": job["id"],
        "kind": job["kind"],
        "state": job["state"],
        "method": job["method"],
        "options": p.get("options", {}),
        "input": p.get("input_name"),
        "batch_id": job["batch_id"],
        "progress": {"frames_done": job["frames_done"], "frames_total": job["frames_total"]},
        "reason": job["reason"],
        "message": job["message"],
        "errors": job["errors"],
        "attempts": job["attempts"],
        "created_at": rfc3339(job["created"]),
        "started_at": rfc3339(job.get("started")),
        "finished_at": rfc3339(job.get("finished")),
        "updated_at": rfc3339(job["updated"]),
        "expires_at": rfc3339(expires),
        "results": {name: f"{prefix}/{job['id']}/result/{name}" for name in job["result"].get("files", [])}
        if job["state"] == "succeeded"
        else {},
        **({"summary": job["result"]["summary"]} if "summary" in job["result"] else {}),
    }
