"""A by-hand check (not part of the suite: it needs ~1 minute of Ray Train start-up): training
with its run folder in a bucket. Starts moto's S3 server on loopback, trains the tests' toy task
on Ray Train (1 worker, 2 steps, a checkpoint every step) with OUTPUT `s3://<bucket>/runs/toy`,
lists what landed there, then reruns on the same OUTPUT with 3 steps, which must resume from the
step-2 checkpoint in the bucket (history 1, 2, 3; exactly one new checkpoint: a fresh run would
have written 3).

    PYTHONPATH=$PWD python scripts/check_train_s3.py
"""

import json
import os
import socket
import sys
import time
import uuid

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(
    AWS_ENDPOINT_URL=f"http://127.0.0.1:{port}",
    AWS_ACCESS_KEY_ID="testing",
    AWS_SECRET_ACCESS_KEY="testing",
    AWS_DEFAULT_REGION="us-east-1",
    AWS_EC2_METADATA_DISABLED="true",
)
sys.path.insert(0, os.getcwd())

import pyarrow.fs as pafs  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from g2w.io import storage  # noqa: E402
from g2w.runtime.ray_init import init_ray  # noqa: E402
from g2w.runtime.train import run_fit  # noqa: E402
from g2w.train import FitConfig  # noqa: E402
from tests.train.toy_task import ToyTask  # noqa: E402


def main() -> int:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    bucket = f"g2w-{uuid.uuid4().hex[:8]}"
    pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"], allow_bucket_creation=True).create_dir(bucket)
    init_ray(num_cpus=2)
    out = f"s3://{bucket}/runs/toy"

    def cfg(steps):
        return FitConfig(
            out,
            steps=steps,
            global_batch=2,
            micro_batch=2,
            lr=1e-2,
            num_workers=1,
            checkpoint_every=1,
            cpus_per_worker=0.5,
        )

    start = time.perf_counter()
    first = run_fit(ToyTask(), cfg(2))
    print(f"first run: {first['steps']} steps in {time.perf_counter() - start:.1f} s, checkpoint {first['checkpoint']}")
    fs, inner = pafs.FileSystem.from_uri(out)

    def objects():
        return sorted(
            i.path[len(inner) + 1 :]
            for i in fs.get_file_info(pafs.FileSelector(inner, recursive=True))
            if i.type == pafs.FileType.File
        )

    def checkpoints():
        return {k.split("/")[0] for k in objects() if k.startswith("checkpoint_") and "/" in k}

    print("objects:", *objects(), sep="\n  ")
    before = checkpoints()
    start = time.perf_counter()
    second = run_fit(ToyTask(), cfg(3))
    history = [h["step"] for h in json.loads(storage.read_bytes(f"{out}/history.json"))]
    new = checkpoints() - before
    print(
        f"rerun: {second['steps']} steps in {time.perf_counter() - start:.1f} s, history {history}, "
        f"{len(new)} new checkpoint(s), checkpoint {second['checkpoint']}"
    )
    ok = (
        first["steps"] == 2
        and history == [1, 2, 3]
        and len(new) == 1
        and second["checkpoint"].startswith("s3://")
        and storage.exists(f"{out}/weights.safetensors")
    )
    print("OK" if ok else "FAILED")
    server.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
