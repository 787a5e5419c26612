"""Results published to an output store (a bucket on the moto S3 server) by the worker itself."""

from __future__ import annotations

import os

from g2w.io import storage
from serve.work import run_removal


def test_a_finished_removal_is_published_to_the_bucket_and_not_kept(make_video, tmp_path, s3_bucket):
    source = make_video(frames=10)
    workdir = tmp_path / "job"
    workdir.mkdir()
    job = {
        "id": "job_x",
        "kind": "removal",
        "input": source,
        "workdir": str(workdir),
        "method": "identity",
        "params": {"options": {}, "results_at": f"{s3_bucket}/job_x"},
    }
    out = run_removal(job)
    assert (out["state"], out["files"]) == ("succeeded", ["edited.mp4"])
    assert storage.read_bytes(f"{s3_bucket}/job_x/edited.mp4") == open(source, "rb").read()
    assert os.listdir(workdir) == []  # moved, not copied: the ingress's disk does not fill up
