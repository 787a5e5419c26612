"""The judge's OpenAI-compatible client, asked for captions instead of judgments.

Transport (retries with backoff, Retry-After, the response_format fallback, the API key read
from the environment at call time and never written) is exactly the judge's
(`g2w.evaluate.judges.openai_judge`); only the request body differs: the caption prompt, the
segment's frames as base64 PNG data URLs, and the caption schema.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from g2w.caption.schema import response_schema
from g2w.evaluate.judges.openai_judge import OpenAIJudge


@dataclass(frozen=True)
class CaptionRequest:
    text: str  # the rendered prompt
    images: tuple  # PNG bytes, in time order


class CaptionClient(OpenAIJudge):
    name = "openai-caption"

    def payload(self, request: CaptionRequest, attempt: int, mode: str) -> dict:
        content = [{"type": "text", "text": request.text}]
        for png in request.images:
            content.append(
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")},
                }
            )
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": self.temperature,
            "seed": self.seed + attempt,
            "max_tokens": self.max_tokens,
        }
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "four_level_caption", "strict": True, "schema": response_schema()},
            }
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body
