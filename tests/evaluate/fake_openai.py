"""A local OpenAI-compatible chat-completions server for tests, scripted per request.

Each scripted step is one of: "valid" (answers every element and frame listed in the evidence
mapping found in the prompt), "malformed" (a reply that fails the schema), "fenced" (a valid
reply inside a Markdown fence, as content parts), an HTTP status code (an error response), or
"reject_format" (HTTP 400 naming response_format when the request carries one), ("sleep", s)
(answers valid after s seconds: a client with a shorter timeout sees a timeout), or a callable
that maps the request body to the reply's content (other kinds of reply, such as captions).
When the script runs out, the last step repeats. Every request is recorded (headers and JSON body).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MARKER = "Evidence mapping (JSON):\n"


def valid_reply(prompt: str) -> dict:
    mapping = json.loads(prompt.split(MARKER, 1)[1])
    elements, frames = [], []
    for img in mapping["images"]:
        if img["kind"] == "overall":
            frames.append(
                {
                    "sample_id": img["sample_id"],
                    "preservation": "preserved",
                    "confidence": 0.9,
                    "note": "wall edges line up",
                }
            )
        else:
            elements.append(
                {
                    "sample_id": img["sample_id"],
                    "element_id": img["element_id"],
                    "removal": "removed",
                    "artifact": "minor",
                    "confidence": 0.8,
                    "note": "text strokes gone, slight blur",
                }
            )
    return {"elements": elements, "frames": frames}


class FakeOpenAI:
    def __init__(self):
        self.script: list = ["valid"]
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                step = server.script[min(len(server.requests) - 1, len(server.script) - 1)]
                if step == "reject_format" and "response_format" in body:
                    return self._send(400, {"error": {"message": "response_format json_schema is not supported"}})
                if isinstance(step, int):
                    return self._send(step, {"error": {"message": "scripted failure"}})
                if isinstance(step, tuple) and step[0] == "sleep":
                    time.sleep(step[1])  # the client has given up by now
                    return self._send(200, {})
                if callable(step):
                    return self._complete(body, step(body))
                prompt = body["messages"][0]["content"][0]["text"]
                if step == "malformed":
                    content = json.dumps({"elements": [], "frames": [], "verdict": "all removed"})
                elif step == "fenced":
                    content = [{"type": "text", "text": "```json\n" + json.dumps(valid_reply(prompt)) + "\n```"}]
                else:
                    content = json.dumps(valid_reply(prompt))
                self._complete(body, content)

            def _complete(self, body: dict, content):
                self._send(
                    200,
                    {
                        "id": "cmpl-1",
                        "object": "chat.completion",
                        "model": body["model"],
                        "choices": [
                            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                        ],
                        "usage": {"prompt_tokens": 1000, "completion_tokens": 200},
                    },
                )

            def _send(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def reset(self, *script):
        self.script = list(script)
        self.requests = []

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
