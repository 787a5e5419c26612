"""Decoding a clip from `s3://`: requests and time with block reads against the demuxer's own
small reads, behind an object store that answers every request after a fixed latency.

A real S3 API (moto's server) sits behind a small HTTP proxy that waits `--latency-ms` before
forwarding each request and counts them by method, so the round trip that loopback hides is
back. The same real 720p30 clip is decoded, every frame, three ways in one run: from the local
disk; from `s3://` with each of PyAV's reads sent to the store as it comes (the raw pyarrow
file, as g2w read before); and from `s3://` through `g2w.io.block_reader` (what `open_binary`
gives now). Same file, same decoder, same process.

Usage: python benchmarks/s3_reads.py [--latency-ms 20] [--seconds 5] [--results docs/results/s3_reads.md]
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import tempfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LatencyProxy:
    """Forwards HTTP/1.1 requests to `upstream` (host, port) after `latency_s`, counting them."""

    def __init__(self, upstream: tuple[str, int], latency_s: float):
        self.counts: Counter = Counter()
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(latency_s)
                with lock:
                    outer.counts[self.command] += 1
                conn = http.client.HTTPConnection(*upstream, timeout=60)
                conn.request(self.command, self.path, body=body, headers=dict(self.headers))
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for key, value in resp.getheaders():
                    if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(key, value)
                length = resp.getheader("Content-Length") if self.command == "HEAD" else None
                self.send_header("Content-Length", length or str(len(data)))  # HEAD: the object's size
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)
                conn.close()

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = _forward

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", _free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the 720p30 clip")
    parser.add_argument("--results", default=None, help="write the Markdown page here")
    args = parser.parse_args()

    from moto.server import ThreadedMotoServer

    moto_port = _free_port()
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=moto_port, verbose=False)
    moto.start()
    proxy = LatencyProxy(("127.0.0.1", moto_port), args.latency_ms / 1000)
    os.environ.update(
        AWS_ENDPOINT_URL=f"http://127.0.0.1:{moto_port}",  # the upload goes direct; reads through the proxy
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_EC2_METADATA_DISABLED="true",
    )
    import pyarrow.fs as pafs

    from g2w.io import storage
    from g2w.io.block_reader import BLOCK_SIZE
    from g2w.io.results_page import markdown_table, write_results_page
    from g2w.sample_data import VideoSpec, write_sample
    from g2w.video import iter_video_frames

    pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"], allow_bucket_creation=True).create_dir("bench")
    with tempfile.TemporaryDirectory(prefix="g2w-s3-reads-") as work:
        local = write_sample(VideoSpec(0, 960, 1280, 720, 30, args.seconds, "corridor", False, None), work)
        uri = "s3://bench/clip.mp4"
        with open(local, "rb") as f:
            storage.write_bytes(uri, f.read())
        size = os.path.getsize(local)
        os.environ["AWS_ENDPOINT_URL"] = proxy.url

        def decode(path: str) -> tuple[int, float, Counter]:
            proxy.counts.clear()
            start = time.perf_counter()
            frames = sum(1 for _ in iter_video_frames(path))
            return frames, time.perf_counter() - start, Counter(proxy.counts)

        results = {"local disk": decode(local)}
        block = storage.open_binary

        def raw(path: str):
            fs, inner = pafs.FileSystem.from_uri(path)
            return fs.open_input_file(inner)

        storage.open_binary = raw  # the reads as PyAV makes them, each one a request
        try:
            results["s3, each read a request (before)"] = decode(uri)
        finally:
            storage.open_binary = block
        results[f"s3, {BLOCK_SIZE >> 20} MiB block reads (now)"] = decode(uri)
    moto.stop()

    rows = [
        [name, frames, counts["GET"], counts["HEAD"], round(seconds, 2), round(frames / seconds, 1)]
        for name, (frames, seconds, counts) in results.items()
    ]
    (_, before_s, before), (_, now_s, now) = list(results.values())[1:]
    body = (
        markdown_table(["read path", "frames", "GETs", "HEADs", "seconds", "frames/s"], rows)
        + f"\n\nOne {args.seconds:g} s 1280x720 30 fps H.264 clip of {size / 2**20:.1f} MiB, every frame decoded;"
        f" {args.latency_ms:g} ms added to every request. Block reads: {before['GET'] / max(1, now['GET']):.0f}x"
        f" fewer GETs, {before_s / now_s:.1f}x faster than the reads sent as they come."
    )
    print(body)
    if args.results:
        command = "python benchmarks/s3_reads.py " + " ".join(
            f"--{k.replace('_', '-')} {v:g}" for k, v in (("latency_ms", args.latency_ms), ("seconds", args.seconds))
        )
        notes = ["moto's server on loopback behind the latency proxy; the clip is procedural (g2w.sample_data)."]
        write_results_page(
            args.results,
            "Decoding from object storage: requests and time",
            f"{command} --results {args.results}",
            body,
            notes,
        )


if __name__ == "__main__":
    main()
