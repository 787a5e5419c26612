"""Driving Debian's headless Chromium over the DevTools protocol (no chromedriver needed).

`Browser` starts Chromium with a fresh profile and a DevTools port, attaches to its page over
a WebSocket, and exposes the few commands the page test needs: navigate, evaluate JavaScript,
set a file input, and take a screenshot.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

from websockets.sync.client import connect

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
]


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    def __init__(self, binary: str):
        self.profile = tempfile.mkdtemp(prefix="g2w-chromium-")
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0", "about:blank"],
            stderr=subprocess.PIPE,
            text=True,
        )
        port = None
        for line in self.proc.stderr:  # "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..."
            m = re.search(r"ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        if port is None:
            raise RuntimeError(f"chromium exited ({self.proc.wait()}) without a DevTools port")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as resp:
            page = next(t for t in json.load(resp) if t["type"] == "page")
        self.ws = connect(page["webSocketDebuggerUrl"], max_size=64 << 20, open_timeout=30)
        self.ids = itertools.count(1)
        self.send("Page.enable")

    def send(self, method: str, **params) -> dict:
        call_id = next(self.ids)
        self.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == call_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def goto(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")

    def eval(self, expression: str):
        result = self.send("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 60.0):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                value = self.eval(expression)
            except RuntimeError:  # the page is navigating: its old context is gone, ask again
                value = None
            if value:
                return value
            time.sleep(0.25)
        raise TimeoutError(f"page never satisfied: {expression}")

    def set_file(self, selector: str, path: str) -> None:
        root = self.send("DOM.getDocument")["root"]["nodeId"]
        node = self.send("DOM.querySelector", nodeId=root, selector=selector)["nodeId"]
        self.send("DOM.setFileInputFiles", nodeId=node, files=[path])

    def screenshot(self, path: str) -> None:
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            shutil.rmtree(self.profile, ignore_errors=True)
