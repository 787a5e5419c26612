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
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import requests

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", default="propagate" if "propagate" in METHODS else "identity")
    parser.add_argument("--clips", type=int, default=8)
    parser.add_argument("--duration-s", type=float, default=5.0)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="g2w-serve-bench-")
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
