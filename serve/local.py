"""Running the real Serve app in-process on the local Ray: for tests and the load benchmark.

`Service` starts Serve's HTTP proxy on a free loopback port and runs `serve.app:build` with the
given settings; `restart()` deletes the application and runs it again on the same data, which
is what a redeploy or a crash-and-restart does to the job store.
"""

from __future__ import annotations

import os
import socket

from ray import serve

from serve.app import build

APP = "g2w-removal"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    def __init__(self, token: str, args: dict, api_options: dict | None = None):
        self.token, self.args, self.api_options = token, dict(args), dict(api_options or {})
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.headers = {"Authorization": f"Bearer {token}"}

    def start(self, **changes) -> Service:
        self.args.update(changes)
        old = os.environ.get("G2W_SERVE_TOKEN")
        os.environ["G2W_SERVE_TOKEN"] = self.token  # read by build() only
        try:
            app = build(self.args, self.api_options)
        finally:
            if old is None:
                os.environ.pop("G2W_SERVE_TOKEN")
            else:
                os.environ["G2W_SERVE_TOKEN"] = old
        serve.start(http_options={"host": "127.0.0.1", "port": self.port})
        serve.run(app, name=APP, route_prefix="/")
        return self

    def restart(self, **changes) -> Service:
        serve.delete(APP)
        return self.start(**changes)

    def stop(self) -> None:
        serve.shutdown()
