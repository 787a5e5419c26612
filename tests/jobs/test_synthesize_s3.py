"""Synthesis reading its clips from a curation output in a bucket (moto), without Ray: the clip
list comes from the sharded manifest there, and the worker fetches the clip it renders."""

import os

import pyarrow as pa

from g2w import storage
from g2w.curate.sharded import write_sharded
from g2w.jobs import synthesize
from g2w.jobs.synthesize import SynthesizeSamples, list_clips, plan_rows
from tests.jobs.test_synthesize import curated  # noqa: F401  (the fixture)


def test_clips_listed_and_fetched_from_a_bucket(curated, s3_bucket, tmp_path, monkeypatch):  # noqa: F811
    out = f"{s3_bucket}/curated"
    storage.upload_tree(f"{curated}/clips", f"{out}/clips")
    rows = [{"clip_id": c, "source_id": c, "source": c, "window_index": 0, "status": s}
            for c, s in (("c0", "kept"), ("c1", "kept"), ("c5", "rejected"), ("c9", "kept"))]
    write_sharded(pa.Table.from_pylist(rows), f"{out}/manifest.parquet")  # as curation writes it
    clips = list_clips(out)
    assert [(c["clip_id"], c["path"]) for c in clips] == [(c, f"{out}/clips/{c}.mp4") for c in ("c0", "c1", "c9")]

    seen = {}

    def render(clip, sample_dir, **kwargs):  # stands in for the renderer: what did the worker hand it?
        seen.update(clip=clip, exists=os.path.isfile(clip), data=open(clip, "rb").read(), uri=kwargs["clip_uri"])
        raise RuntimeError("stop after the fetch")

    monkeypatch.setattr(synthesize, "render_sample", render)
    monkeypatch.chdir(tmp_path)
    step = SynthesizeSamples("/unused-assets", str(tmp_path / "synth"))
    step._library = step._neural = None
    base = plan_rows(clips, 1, seed=1)[0]
    row = step._one(base)
    assert (row["status"], row["reason"]) == ("error", "render_failed") and "stop after the fetch" in row["error"]
    assert seen["exists"] and not seen["clip"].startswith("s3://") and not os.path.exists(seen["clip"])  # fetched, then removed
    assert seen["data"] == storage.read_bytes(f"{out}/clips/c0.mp4") and seen["uri"] == f"{out}/clips/c0.mp4"
