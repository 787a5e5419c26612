"""A real two-raylet Ray cluster on this machine, token auth on, and the curation job submitted
to it with `ray job submit`, as the README's "Run on a cluster" does."""

from __future__ import annotations

import json
import subprocess

import pyarrow.parquet as pq
import pytest

from g2w.sample_data import VideoSpec, write_sample
from tests.cluster.ray_processes import RAY, ROOT, LocalCluster


@pytest.fixture(scope="module")
def cluster():
    """A head (1 CPU) plus a second raylet (1 CPU and a custom `decode` resource)."""
    c = LocalCluster(["--num-cpus=1", "--num-gpus=0"])
    try:
        c.wait_for("/1.0 CPU")
        c.add_raylet(["--num-cpus=1", "--num-gpus=0", '--resources={"decode": 1}'])
        c.wait_for("/2.0 CPU")
        yield c
    finally:
        c.stop()


def test_without_the_token_the_cluster_refuses_a_client(cluster):
    bad = {**cluster.env, "RAY_AUTH_TOKEN": "0" * 32}
    out = subprocess.run([RAY, "job", "list", f"--address={cluster.dashboard}"], env=bad, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode != 0


def test_ray_job_submit_of_curation_to_two_raylets(cluster, tmp_path, tiny_clip_config):
    raw = tmp_path / "raw"
    write_sample(VideoSpec(0, 5, 320, 180, 24, 10.0, "topdown", False, None), raw)
    (raw / "empty.mp4").write_bytes(b"")
    out = tmp_path / "out"
    cmd = [RAY, "job", "submit", f"--address={cluster.dashboard}", "--working-dir", ROOT, "--",
           "python", "-m", "ray_jobs.curate", str(raw), "--output", str(out), "--clip-model", tiny_clip_config,
           "--out-width", "160", "--out-height", "96", "--preset", "ultrafast"]
    done = subprocess.run(cmd, env=cluster.env, capture_output=True, text=True, timeout=420)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "succeeded" in done.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["cluster"] == {"CPU": 2.0, "GPU": 0}  # both raylets served the job
    manifest = pq.read_table(out / "manifest.parquet").to_pylist()
    windows = [r for r in manifest if r["window_index"] >= 0]
    assert len(windows) == 2 and {r["reason"] for r in manifest if r["window_index"] < 0} == {"empty_file"}
    kept = [r for r in windows if r["status"] == "kept"]
    assert summary["counts"]["kept"] == len(kept) and all((out / r["clip_path"]).is_file() for r in kept)
