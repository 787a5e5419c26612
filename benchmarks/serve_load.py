"""Load on the removal service, against the bare remove job on the same clips.

1. Bare: `g2w remove` (`run_remove`, Ray Data on the local cluster) over CLIPS procedural
   gameplay clips, wall time.
2. Service: the real Serve app on loopback, the same clips by URI (no upload), the same method
   and CPU count (one Remover replica per CPU, as many removals in flight): wall time from the
   first submit to the last job finished. The ratio service / bare is the service's overhead
   (HTTP, probe at admission, store, dispatch, polling).
3. Latency under load: REQUESTS requests at CONCURRENCY, one in four a submission with an
   uploaded clip, the rest status reads; p50/p95/p99 of each and the count of 5xx answers.

Both runs use the same local Ray with the same CPUs, one after the other, never together.
Usage: heavy --exclusive python benchmarks/serve_load.py [--method propagate] [--clips 8]

`--sweep 5,16,64 --results docs/results/serve_load.md` measures instead what Api's
max_ongoing_requests does to status reads: for each value a fresh service (dispatching off, so
no removal competes for the CPUs), SLOW uploads that trickle a clip over --slow-s seconds and
hold their request open, and meanwhile REQUESTS status reads at CONCURRENCY; p50/p95/p99 of the
reads, their errors, and the uploads' answers.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import requests

from g2w.io.results_page import markdown_table, write_results_page
from g2w.jobs.remove import run_remove
from g2w.remove import METHODS
from g2w.runtime.ray_init import init_ray
from g2w.sample_data import generate_samples
from serve.local import Service

TOKEN = "bench-token"


def percentiles(values: list[float]) -> dict:
    q = statistics.quantiles(values, n=100, method="inclusive")
    return {"p50_ms": round(q[49] * 1000, 1), "p95_ms": round(q[94] * 1000, 1), "p99_ms": round(q[98] * 1000, 1)}


def bare_seconds(method: str, clips: list[str], workdir: str) -> float:
    listing = os.path.join(workdir, "cases.jsonl")
    with open(listing, "w") as f:
        for clip in clips:  # removal reads the video only; the annotation path is never opened
            f.write(
                json.dumps({"case_id": os.path.basename(clip)[:-4], "video": clip, "annotation": "none.json"}) + "\n"
            )
    start = time.perf_counter()
    summary = run_remove(method, listing, os.path.join(workdir, "bare"))
    assert summary["ok"] == len(clips), summary
    return time.perf_counter() - start


def service_seconds(svc: Service, method: str, clips: list[str]) -> float:
    start = time.perf_counter()
    ids = []
    for clip in clips:
        resp = requests.post(f"{svc.url}/v1/removals", headers=svc.headers, data={"method": method, "uri": clip})
        assert resp.status_code == 202, resp.text
        ids.append(resp.json()["id"])
    pending = set(ids)
    while pending:
        for job_id in list(pending):
            job = requests.get(f"{svc.url}/v1/removals/{job_id}", headers=svc.headers).json()
            if job["state"] in ("succeeded", "failed", "canceled"):
                assert job["state"] == "succeeded", job
                pending.discard(job_id)
        time.sleep(0.1)
    return time.perf_counter() - start


def latency(svc: Service, method: str, clip: str, requests_n: int, concurrency: int) -> dict:
    status_id = requests.post(
        f"{svc.url}/v1/removals", headers=svc.headers, data={"method": method, "uri": clip}
    ).json()["id"]
    data = open(clip, "rb").read()

    def one(i: int):
        t = time.perf_counter()
        if i % 4 == 0:
            code = requests.post(
                f"{svc.url}/v1/removals",
                headers=svc.headers,
                data={"method": method},
                files={"file": ("clip.mp4", data)},
            ).status_code
            return "submit", code, time.perf_counter() - t
        code = requests.get(f"{svc.url}/v1/removals/{status_id}", headers=svc.headers).status_code
        return "status", code, time.perf_counter() - t

    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, range(requests_n)))
    out = {
        "requests": requests_n,
        "concurrency": concurrency,
        "5xx": sum(c >= 500 for _, c, _ in results),
        "429": sum(c == 429 for _, c, _ in results),
    }
    for kind in ("submit", "status"):
        out[kind] = percentiles([s for k, c, s in results if k == kind and c < 300])
    return out


def slow_upload(svc: Service, clip: str, seconds: float, out: list) -> None:
    """POST the clip as multipart over a raw socket, a slice at a time across `seconds`: a client on
    a slow link, whose request stays open at the ingress all that time. Appends the status code."""
    boundary = "g2wbench"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="method"\r\n\r\nidentity\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.mp4"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + open(clip, "rb").read()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    head = (
        f"POST /v1/removals HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {svc.token}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    slices = 40
    with socket.create_connection(("127.0.0.1", svc.port), timeout=seconds + 120) as sock:
        sock.sendall(head)
        step = -(-len(body) // slices)
        for i in range(0, len(body), step):
            sock.sendall(body[i : i + step])
            time.sleep(seconds / slices)
        answer = sock.recv(64).decode(errors="replace")
    out.append(int(answer.split()[1]) if answer.startswith("HTTP/") else 0)


def status_reads(svc: Service, job_id: str, n: int, concurrency: int) -> tuple[list[float], int]:
    def one(_):
        t = time.perf_counter()
        try:
            code = requests.get(f"{svc.url}/v1/removals/{job_id}", headers=svc.headers, timeout=120).status_code
        except requests.RequestException:
            code = 0
        return code, time.perf_counter() - t

    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, range(n)))
    return [s for c, s in results if c == 200], sum(c != 200 for c, _ in results)


def sweep(args, clip: str, workdir: str) -> list[dict]:
    rows = []
    for value in [int(v) for v in args.sweep.split(",")]:
        svc = Service(
            TOKEN,
            {
                "data-dir": os.path.join(workdir, f"sweep_{value}"),
                "allowed-roots": workdir,
                "dispatch": "false",
                "max-active-jobs": "100000",
                "max-active-per-owner": "100000",
            },
            api_options={"max_ongoing_requests": value},
        ).start()
        try:
            job_id = requests.post(
                f"{svc.url}/v1/removals", headers=svc.headers, data={"method": "identity", "uri": clip}, timeout=120
            ).json()["id"]
            status_reads(svc, job_id, 16, 4)  # warm: the proxy's routes and the replica's first calls
            codes: list[int] = []
            uploads = [
                threading.Thread(target=slow_upload, args=(svc, clip, args.slow_s, codes)) for _ in range(args.slow)
            ]
            for t in uploads:
                t.start()
            time.sleep(1.0)  # every upload is open at the ingress before the reads start
            start = time.perf_counter()
            ok, errors = status_reads(svc, job_id, args.requests, args.concurrency)
            reads_s = time.perf_counter() - start
            for t in uploads:
                t.join()
        finally:
            svc.stop()
        rows.append(
            {
                "api_max_ongoing_requests": value,
                **percentiles(ok),
                "read_errors": errors,
                "reads_s": round(reads_s, 2),
                "uploads_202": sum(c == 202 for c in codes),
                "upload_codes": sorted(codes),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
    return rows


def write_sweep(args, rows: list[dict]) -> None:
    command = (
        f"python benchmarks/serve_load.py --sweep {args.sweep} --requests {args.requests}"
        f" --concurrency {args.concurrency} --slow {args.slow} --slow-s {args.slow_s} --results {args.results}"
    )
    table = markdown_table(
        [
            "Api max_ongoing_requests",
            "status p50 ms",
            "p95 ms",
            "p99 ms",
            "read errors",
            "reads took s",
            "slow uploads 202",
        ],
        [
            [
                r["api_max_ongoing_requests"],
                r["p50_ms"],
                r["p95_ms"],
                r["p99_ms"],
                r["read_errors"],
                r["reads_s"],
                f"{r['uploads_202']} of {args.slow}",
            ]
            for r in rows
        ],
    )
    body = (
        f"{args.requests} status reads (`GET /v1/removals/{{id}}`) at {args.concurrency} concurrent while"
        f" {args.slow} uploads trickle a clip over {args.slow_s:.0f} s each, holding their request open at Api.\n\n"
        + table
    )
    notes = [
        "Dispatching is off: the job stays queued and no removal competes for the CPUs, so the figures are the"
        " ingress alone; in service the workers' progress reports add to Api's requests.",
        "A read counts as an error on any answer but 200 or no answer within 120 s.",
        "Serve's default max_ongoing_requests is 5: with five uploads open it leaves reads waiting for a slot.",
    ]
    write_results_page(args.results, "Api concurrency under slow uploads", command, body, notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", default="propagate" if "propagate" in METHODS else "identity")
    parser.add_argument("--clips", type=int, default=8)
    parser.add_argument("--duration-s", type=float, default=5.0)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--sweep", default="", help="Api max_ongoing_requests values to compare, e.g. 5,16,64")
    parser.add_argument("--slow", type=int, default=5, help="slow uploads held open during the sweep's reads")
    parser.add_argument("--slow-s", type=float, default=20.0)
    parser.add_argument("--results", default="", help="write the sweep's page here (docs/results/serve_load.md)")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="g2w-serve-bench-")
    if args.sweep:
        clip = generate_samples(os.path.join(workdir, "clips"), 1, seed=7, duration_s=1.0)
        init_ray()
        rows = sweep(args, next(p for p in clip if p.endswith(".mp4")), workdir)
        if args.results:
            write_sweep(args, rows)
        return
    shutil.rmtree(os.path.join(workdir, "bare"), ignore_errors=True)
    clips = sorted(
        p
        for p in generate_samples(os.path.join(workdir, "clips"), args.clips, seed=7, duration_s=args.duration_s)
        if p.endswith(".mp4")
    )
    cpus = int(init_ray()["CPU"])
    bare = bare_seconds(args.method, clips, workdir)

    svc = Service(
        TOKEN,
        {
            "data-dir": os.path.join(workdir, "serve_data"),
            "allowed-roots": workdir,
            "cpu-replicas": str(cpus),
            "max-running": str(cpus),
            "max-active-jobs": "100000",
        },
    ).start()
    try:
        service = service_seconds(svc, args.method, clips)
        load = latency(svc, args.method, clips[0], args.requests, args.concurrency)
    finally:
        svc.stop()
    print(
        json.dumps(
            {
                "method": args.method,
                "clips": len(clips),
                "clip_s": args.duration_s,
                "cpus": cpus,
                "bare_remove_s": round(bare, 2),
                "service_s": round(service, 2),
                "service_removals_per_min": round(60 * len(clips) / service, 1),
                "bare_removals_per_min": round(60 * len(clips) / bare, 1),
                "ratio_service_over_bare": round(service / bare, 2),
                "load": load,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
