"""Kill the curation job with SIGKILL part-way, rerun it, and get what an uninterrupted run gets."""

import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from g2w.sample_data import VideoSpec, write_sample

COLUMNS = ("clip_id", "status", "reason", "cluster", "sampled", "dup_of")


def _curate(inputs: str, out: str, model: str, log) -> subprocess.Popen:
    cmd = [
        sys.executable,
        "-m",
        "ray_jobs.curate",
        inputs,
        "--output",
        out,
        "--clip-model",
        model,
        "--preset",
        "ultrafast",
        "--dedup-threshold",
        "0.995",
    ]
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True, env=env)


def _finished(job: subprocess.Popen, log) -> None:
    """The job must exit 0; otherwise fail with the end of its stderr, which says why."""
    code = job.wait(timeout=600)
    log.seek(0)
    assert code == 0, log.read().decode(errors="replace")[-3000:]


def _result(out: str):
    rows = pq.read_table(os.path.join(out, "manifest.parquet")).to_pylist()
    return [tuple(r[c] for c in COLUMNS) for r in rows], sorted(os.listdir(os.path.join(out, "clips")))


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, tiny_clip_config):
    raw = tmp_path_factory.mktemp("raw")
    for i, style in enumerate(("topdown", "racing")):
        write_sample(VideoSpec(1, i, 320, 180, 24, 10.0, style, False, None), raw)
    reference = str(tmp_path_factory.mktemp("reference"))
    with open(tmp_path_factory.mktemp("logs") / "reference.log", "w+b") as log:
        _finished(_curate(str(raw), reference, tiny_clip_config, log), log)
    return str(raw), _result(reference)


@pytest.mark.slow
@pytest.mark.parametrize("kill_when", ["shards", "clips"])
def test_killed_then_rerun_equals_uninterrupted(tmp_path, tiny_clip_config, uninterrupted, kill_when):
    raw, reference = uninterrupted
    resumed = str(tmp_path / "resumed")
    job = _curate(raw, resumed, tiny_clip_config, subprocess.DEVNULL)
    marker = {"shards": os.path.join(resumed, "work", "windows"), "clips": os.path.join(resumed, "clips")}[kill_when]
    deadline = time.time() + 600
    while time.time() < deadline and job.poll() is None:
        if os.path.isdir(marker) and any(n.endswith((".parquet", ".mp4")) for n in os.listdir(marker)):
            break
        time.sleep(0.05)
    assert job.poll() is None, "the job finished before it could be killed"
    os.killpg(job.pid, signal.SIGKILL)  # the driver and the local Ray it started
    job.wait()
    assert not os.path.exists(os.path.join(resumed, "manifest.parquet"))

    with open(tmp_path / "rerun.log", "w+b") as log:
        _finished(_curate(raw, resumed, tiny_clip_config, log), log)
    assert _result(resumed) == reference
    assert not [n for n in os.listdir(os.path.join(resumed, "clips")) if n.startswith(".")]
