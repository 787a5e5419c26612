"""A small client for the removal service (serve/): upload, poll with progress, download.

Standard library only (urllib), so any machine with g2w can submit without Ray. A 429 answer is
waited out as its Retry-After says, up to `max_wait_s`.
"""

from __future__ import annotations

import json
import mimetypes
import os
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass

FINAL = ("succeeded", "failed", "canceled")


class ServiceError(RuntimeError):
    def __init__(self, status: int, body: dict):
        super().__init__(f"HTTP {status}: {body.get('error', '')} {body.get('message', '')}".strip())
        self.status, self.body = status, body


def _multipart(fields: dict[str, str], file_field: str, path: str) -> tuple[bytes, str]:
    """A multipart/form-data body; the file is read whole (clips are short; the server caps the size)."""
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    ctype = mimetypes.guess_type(path)[0] or "application/octet-stream"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
        f'filename="{os.path.basename(path)}"\r\nContent-Type: {ctype}\r\n\r\n'
    ).encode()
    with open(path, "rb") as f:
        parts.append(head + f.read() + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


@dataclass
class Client:
    url: str
    token: str | None = None
    timeout_s: float = 60.0
    max_wait_s: float = 300.0

    def _request(self, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
        headers = {**(headers or {}), **({"Authorization": f"Bearer {self.token}"} if self.token else {})}
        deadline = time.monotonic() + self.max_wait_s
        while True:
            req = urllib.request.Request(self.url.rstrip("/") + path, data=body, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    return resp.read(), resp.headers.get("content-type", "")
            except urllib.error.HTTPError as exc:
                payload = exc.read()
                retry = exc.headers.get("retry-after")
                if exc.code == 429 and retry and time.monotonic() + float(retry) < deadline:
                    time.sleep(float(retry))
                    continue
                try:
                    detail = json.loads(payload)
                except ValueError:
                    detail = {"message": payload[:200].decode("utf-8", "replace")}
                raise ServiceError(exc.code, detail) from None

    def _json(self, method: str, path: str, **kw) -> dict:
        return json.loads(self._request(method, path, **kw)[0])

    def methods(self) -> list[dict]:
        return self._json("GET", "/v1/methods")["methods"]

    def submit(
        self,
        path: str,
        method: str,
        options: dict | None = None,
        idempotency_key: str | None = None,
        detect: bool = False,
    ) -> dict:
        """Upload a clip for removal (with `detect`, also the UI mask and annotation); returns the queued job."""
        fields = {"method": method, "options": json.dumps(options or {}), "detect": "true" if detect else "false"}
        body, ctype = _multipart(fields, "file", path)
        headers = {"Content-Type": ctype, **({"Idempotency-Key": idempotency_key} if idempotency_key else {})}
        return self._json("POST", "/v1/removals", body=body, headers=headers)

    def status(self, job_id: str) -> dict:
        return self._json("GET", f"/v1/removals/{job_id}")

    def cancel(self, job_id: str) -> dict:
        return self._json("DELETE", f"/v1/removals/{job_id}")

    def wait(self, job_id: str, poll_s: float = 0.5, on_progress: Callable[[dict], None] | None = None) -> dict:
        while True:
            job = self.status(job_id)
            if on_progress:
                on_progress(job)
            if job["state"] in FINAL:
                return job
            time.sleep(poll_s)

    def download(self, job: dict, out_dir: str) -> list[str]:
        """Save every result of a finished job as OUT_DIR/<name>; returns the paths."""
        os.makedirs(out_dir, exist_ok=True)
        saved = []
        for name, url in job["results"].items():
            data, _ = self._request("GET", url)
            path = os.path.join(out_dir, os.path.basename(name))
            with open(path + ".partial", "wb") as f:
                f.write(data)
            os.replace(path + ".partial", path)
            saved.append(path)
        return saved
