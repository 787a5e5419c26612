"""A by-hand check (not in the suite): `g2w synthesize` on local Ray, clips and output in a bucket.
Starts moto's S3 server on loopback, uploads two generated clips to `s3://<bucket>/clips_in`, runs
`run_synthesize` (3 samples, 1 s, 256x144) to `s3://<bucket>/synth` twice (the rerun must reuse
all 3), lists the bucket and reads it back as removal/evaluation cases.

    heavy env PYTHONPATH=$PWD python scripts/check_synthesize_s3.py
"""

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
from moto.server import ThreadedMotoServer

server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
server.start()
import pyarrow.fs as pafs

bucket = f"g2w-{uuid.uuid4().hex[:8]}"
pafs.S3FileSystem(endpoint_override=os.environ["AWS_ENDPOINT_URL"], allow_bucket_creation=True).create_dir(bucket)
import tempfile

from g2w.cases.case import load_cases
from g2w.hud.bootstrap import bootstrap_library
from g2w.hud.profile import SynthProfile
from g2w.hud.render import EncodeSettings
from g2w.io import storage
from g2w.jobs.synthesize import run_synthesize
from g2w.runtime.ray_init import init_ray
from tests.hud.conftest import gameplay_frames, write_clip

root = tempfile.mkdtemp(prefix="g2w-synth-s3-")
os.makedirs(root + "/clips", exist_ok=True)
for k, style in enumerate(("topdown", "racing")):
    write_clip(f"{root}/clips/c{k}.mp4", gameplay_frames(256, 144, 30, style, seed=k))
storage.upload_tree(f"{root}/clips", f"s3://{bucket}/clips_in")
bootstrap_library(root + "/lib", per_label=3, seed=0)
init_ray(num_cpus=2)
out = f"s3://{bucket}/synth"
runs = []
for attempt in (1, 2):
    t = time.perf_counter()
    s = run_synthesize(
        f"s3://{bucket}/clips_in",
        root + "/lib",
        out,
        count=3,
        seed=0,
        profile=SynthProfile(duration_s=1.0),
        encode=EncodeSettings(23, "ultrafast"),
    )
    runs.append((s["ok"], s["error"], s["reused"]))
    print(f"run {attempt}: ok {s['ok']}, error {s['error']}, reused {s['reused']}, {time.perf_counter() - t:.1f} s")
fs, inner = pafs.FileSystem.from_uri(out)
keys = sorted(
    i.path[len(inner) + 1 :]
    for i in fs.get_file_info(pafs.FileSelector(inner, recursive=True))
    if i.type == pafs.FileType.File
)
cases = [c.case_id for c in load_cases(out)]
print(f"{len(keys)} objects:", *keys, sep="\n  ")
print("cases:", cases)
ok = runs == [(3, 0, 0), (3, 0, 3)] and len(keys) == 3 * 6 + 4 and len(cases) == 3
print("OK" if ok else "FAILED")
server.stop()
sys.exit(0 if ok else 1)
