"""An MLLM judge behind any OpenAI-compatible `/v1/chat/completions` endpoint.

Works with vLLM, SGLang, Ray Serve LLM or a hosted API. One request per video: the rendered
prompt first, then every evidence image as a base64 data URL, in mapping order. Model,
temperature, seed, token budget and response-format mode are frozen in `settings()`.

Transport failures (connection errors, timeouts, HTTP 408/409/429/5xx) are retried with
exponential backoff, honouring `Retry-After`; other HTTP errors (a wrong model name, a bad key)
are not retried. A server that rejects `response_format` with HTTP 400 is asked again without
it, and the reply records which mode was used. A reply that fails the schema is the caller's
business: `attempt` shifts the seed so that a retry is a fresh sample, not a replay.

The API key is read from the environment variable named by `api_key_env` at call time. It goes
into the Authorization header and nowhere else: not into settings, records, logs or errors.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from g2w.evaluate.evidence import mapping_text
from g2w.evaluate.judges.base import JudgeReply, JudgeRequest, JudgeUnavailable
from g2w.evaluate.schema import response_schema

RESPONSE_FORMATS = ("json_schema", "json_object", "none")
_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}


def chat_url(endpoint: str) -> str:
    """Accept a base URL (`http://host:8000/v1`) or the full chat-completions URL."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/chat/completions") else endpoint + "/chat/completions"


class RateLimiter:
    """At most `per_minute` request starts per minute from this limiter (evenly spaced)."""

    def __init__(self, per_minute: float | None):
        self.interval = 60.0 / per_minute if per_minute else 0.0
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        time.sleep(max(0.0, start - now))


@dataclass
class OpenAIJudge:
    endpoint: str
    model: str
    api_key_env: str | None = None
    temperature: float = 0.0
    seed: int = 0
    max_tokens: int = 8192
    response_format: str = "json_schema"
    timeout_s: float = 600.0
    transport_retries: int = 4
    backoff_s: float = 2.0
    backoff_max_s: float = 60.0
    requests_per_minute: float | None = None

    name = "openai"
    uses_prompt = True

    def __post_init__(self):
        if self.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}")
        if self.api_key_env and not os.environ.get(self.api_key_env):
            raise ValueError(f"environment variable {self.api_key_env} (the API key) is not set")
        self._limiter = RateLimiter(self.requests_per_minute)
        self._format_in_use = self.response_format

    def settings(self) -> dict:
        return {
            "judge": self.name,
            "endpoint": chat_url(self.endpoint),
            "model": self.model,
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "response_format": self.response_format,
            "image_encoding": "png-base64",
        }

    def cache_inputs(self, request: JudgeRequest) -> dict:
        return {}

    def payload(self, request: JudgeRequest, attempt: int, mode: str) -> dict:
        mapping = request.evidence.mapping
        text = request.prompt.render(mapping["image_count"], mapping_text(mapping))
        content = [{"type": "text", "text": text}]
        for path in request.evidence.paths():
            with open(path, "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
            content.append({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}})
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": self.temperature,
            "seed": self.seed + attempt,
            "max_tokens": self.max_tokens,
        }
        if mode == "json_schema":
            schema = response_schema(request.plan.expected_pairs(), request.plan.sample_ids())
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "hud_removal_judgment", "strict": True, "schema": schema},
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _post(self, body: bytes) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            headers["Authorization"] = "Bearer " + os.environ.get(self.api_key_env, "")
        req = urllib.request.Request(chat_url(self.endpoint), data=body, headers=headers, method="POST")
        with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
            return resp.status, resp.read()

    def _delay(self, tries: int, retry_after: str | None) -> float:
        if retry_after:
            try:
                return min(self.backoff_max_s, max(0.0, float(retry_after)))
            except ValueError:
                pass
        return min(self.backoff_max_s, self.backoff_s * 2**tries)

    def call(self, request: JudgeRequest, attempt: int) -> JudgeReply:
        failures: list[str] = []
        tries = 0
        while True:
            mode = self._format_in_use
            body = json.dumps(self.payload(request, attempt, mode)).encode()
            self._limiter.wait()
            start = time.monotonic()
            retry_after = None
            try:
                status, raw = self._post(body)
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:500].decode("utf-8", "replace")
                if exc.code == 400 and mode != "none" and "response_format" in detail:
                    self._format_in_use = "none"  # this server cannot constrain output
                    failures.append(f"HTTP 400 for response_format={mode}; retrying without it")
                    continue
                if exc.code not in _RETRY_STATUS:
                    raise JudgeUnavailable(f"HTTP {exc.code} from the judge endpoint: {detail}") from None
                retry_after = exc.headers.get("Retry-After") if exc.headers else None
                failures.append(f"HTTP {exc.code}")
            except (TimeoutError, urllib.error.URLError, ConnectionError, OSError) as exc:
                failures.append(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}")
            else:
                return self._reply(status, raw, attempt, mode, time.monotonic() - start, failures)
            if tries >= self.transport_retries:
                raise JudgeUnavailable(f"judge endpoint failed {tries + 1} times: {failures[-3:]}")
            time.sleep(self._delay(tries, retry_after))
            tries += 1

    def _reply(
        self, status: int, raw: bytes, attempt: int, mode: str, seconds: float, failures: list[str]
    ) -> JudgeReply:
        text = raw.decode("utf-8", "replace")
        meta = {
            "http_status": status,
            "seed": self.seed + attempt,
            "response_format_used": mode,
            "latency_s": round(seconds, 3),
            "transport_failures": failures,
        }
        try:
            response = json.loads(text)
            message = response["choices"][0]["message"]
            content = message.get("content")
            if isinstance(content, list):  # some servers return content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            meta.update(
                response={k: v for k, v in response.items() if k != "choices"},
                finish_reason=response["choices"][0].get("finish_reason"),
            )
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            # A body that is not a chat completion is kept whole; validation rejects it.
            meta["response"] = text[:20000]
            return JudgeReply(text, meta)
        return JudgeReply(content if isinstance(content, str) else "", meta)
