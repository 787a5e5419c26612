"""A real two-raylet Ray cluster on this machine, token auth on, and the curation job submitted
to it with `ray job submit`, as the README's "Run on a cluster" does, writing to a bucket (moto's
S3 server on loopback); its manifest must match a local run's on the same inputs."""

from __future__ import annotations

import json
import subprocess

import pyarrow.parquet as pq
import pytest

from g2w.curate.config import CurateConfig
from g2w.io import storage
from g2w.jobs.curate import run_curate
from g2w.sample_data import VideoSpec, write_sample
from tests.cluster.ray_processes import RAY, ROOT, LocalCluster

SMALL = CurateConfig(preset="ultrafast", out_width=160, out_height=96)
SMALL_ARGS = ["--preset", "ultrafast", "--out-width", "160", "--out-height", "96"]


@pytest.fixture(scope="module")
def cluster():
    """A head (1 CPU) plus a second raylet (1 CPU and a custom `decode` resource), started
    together: the second one retries until the head's GCS answers."""
    c = LocalCluster(["--num-cpus=1", "--num-gpus=0"])
    try:
        c.add_raylet(["--num-cpus=1", "--num-gpus=0", '--resources={"decode": 1}'])
        c.wait_for("/2.0 CPU", timeout_s=300)  # a loaded 2-core machine needs minutes, a quiet one ~30 s
        yield c
    finally:
        c.stop()


def test_without_the_token_the_cluster_refuses_a_client(cluster):
    bad = {**cluster.env, "RAY_AUTH_TOKEN": "0" * 32}
    out = subprocess.run(
        [RAY, "job", "list", f"--address={cluster.dashboard}"], env=bad, capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0


def test_a_submitted_curation_writes_to_a_bucket_what_a_local_run_writes(cluster, s3_bucket, tmp_path, ray_local):
    raw = tmp_path / "raw"
    write_sample(VideoSpec(0, 5, 320, 180, 24, 10.0, "topdown", False, None), raw)
    (raw / "empty.mp4").write_bytes(b"")
    out = f"{s3_bucket}/curated"
    cmd = [
        RAY,
        "job",
        "submit",
        f"--address={cluster.dashboard}",
        "--working-dir",
        ROOT,
        "--",
        "python",
        "-m",
        "ray_jobs.curate",
        str(raw),
        "--output",
        out,
        *SMALL_ARGS,
    ]
    done = subprocess.run(cmd, env=cluster.env, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "succeeded" in done.stdout
    summary = json.loads(storage.read_bytes(f"{out}/summary.json"))
    assert summary["cluster"] == {"CPU": 2.0, "GPU": 0}  # both raylets served the job

    run_curate([str(raw)], str(tmp_path / "local"), SMALL)  # the same inputs on the test's local Ray
    remote = pq.read_table(f"{out}/manifest.parquet")
    local = pq.read_table(tmp_path / "local" / "manifest.parquet")
    assert remote.num_rows == 3 and remote.equals(local)  # 2 windows and the empty file, row for row
    kept = [r["clip_path"] for r in remote.to_pylist() if r["status"] == "kept"]
    assert kept and storage.list_files(f"{out}/clips") == sorted(f"{out}/{p}" for p in kept)


def test_a_local_output_on_two_nodes_is_refused_before_any_work(cluster, tmp_path):
    """Each worker would write its part on its own node's disk: the job stops at once and says
    how to give an output every node reaches."""
    raw = tmp_path / "raw"
    write_sample(VideoSpec(0, 6, 160, 96, 24, 2.0, "topdown", False, None), raw)
    out = tmp_path / "local_out"
    cmd = [RAY, "job", "submit", f"--address={cluster.dashboard}", "--working-dir", ROOT, "--"]
    cmd += ["python", "-m", "ray_jobs.curate", str(raw), "--output", str(out), *SMALL_ARGS]
    done = subprocess.run(cmd, env=cluster.env, capture_output=True, text=True, timeout=420)
    assert done.returncode != 0
    assert "G2W_SHARED_PATHS" in done.stdout + done.stderr, done.stdout[-3000:] + done.stderr[-3000:]
    assert not (out / "manifest.parquet").exists() and not list((out / "shards").glob("*"))
