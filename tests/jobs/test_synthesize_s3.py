"""Synthesis with a bucket (moto), without Ray: clips listed from a sharded curation manifest
there and fetched by the worker; samples rendered locally and published by the worker to
`OUT/samples/<id>/` (record last), reused on a rerun; the driver's manifest, summary and report
in the bucket; removal/evaluation reading the result as cases."""

import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from g2w.cases.case import load_cases, local_case
from g2w.curate.bucketed_table import write_sharded
from g2w.hud.profile import SynthProfile
from g2w.hud.render import OUTPUTS, EncodeSettings
from g2w.io import storage
from g2w.jobs import synthesize
from g2w.jobs.synthesize import MANIFEST_SCHEMA, SynthesizeSamples, list_clips, plan_rows
from tests.jobs.test_synthesize import curated  # noqa: F401  (the fixture)


def test_clips_listed_and_fetched_from_a_bucket(curated, s3_bucket, tmp_path, monkeypatch):  # noqa: F811
    out = f"{s3_bucket}/curated"
    storage.upload_tree(f"{curated}/clips", f"{out}/clips")
    rows = [
        {"clip_id": c, "source_id": c, "source": c, "window_index": 0, "status": s}
        for c, s in (("c0", "kept"), ("c1", "kept"), ("c5", "rejected"), ("c9", "kept"))
    ]
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
    assert (
        seen["exists"] and not seen["clip"].startswith("s3://") and not os.path.exists(seen["clip"])
    )  # fetched, then removed
    assert seen["data"] == storage.read_bytes(f"{out}/clips/c0.mp4") and seen["uri"] == f"{out}/clips/c0.mp4"


def test_samples_published_to_a_bucket_reused_on_rerun_and_read_as_cases(
    curated,
    library_dir,
    s3_bucket,  # noqa: F811
    monkeypatch,
):
    out = f"{s3_bucket}/synth"
    rows = plan_rows(list_clips(curated), 3, seed=1)  # c0, c1 and the broken c9
    batch = {k: np.array([r[k] for r in rows]) for k in ("sample_id", "clip_id", "clip_path", "seed")}
    profile, encode = SynthProfile(duration_s=0.5), EncodeSettings(23, "ultrafast")
    step = SynthesizeSamples(library_dir, out, profile.to_dict(), dict(encode.__dict__), "cpu")
    step.setup()
    published = []
    upload = storage.publish_file
    monkeypatch.setattr(storage, "publish_file", lambda local, dest: (published.append(dest), upload(local, dest)))
    first = step(batch)
    assert list(first["status"]) == ["ok", "ok", "error"] and first["reason"][2] == "corrupt"
    assert list(first["sample_dir"][:2]) == [f"{out}/samples/c0_s1_00000", f"{out}/samples/c1_s1_00001"]
    for sid in ("c0_s1_00000", "c1_s1_00001"):
        names = [p.rsplit("/", 1)[-1] for p in storage.list_files(f"{out}/samples/{sid}")]
        assert names == sorted(OUTPUTS.values())
        mine = [p for p in published if f"/{sid}/" in p]
        assert len(mine) == len(OUTPUTS) and mine[-1].endswith("/record.json")  # the completion mark goes last
    assert storage.list_files(f"{out}/samples/c9_s1_00002") == []  # a failed sample publishes nothing

    published.clear()
    second = step(batch)  # a rerun: the finished samples are read back from the bucket, nothing re-uploaded
    assert list(second["reused"]) == [True, True, False] and published == []
    for name in ("style", "persistent", "events", "instances", "width", "frame_count"):
        assert list(second[name][:2]) == list(first[name][:2])

    # the driver's part: manifest (as write_parquet streams it), then summary and report, all in the bucket
    with storage.staged_file(f"{out}/manifest.parquet") as tmp:
        pq.write_table(
            pa.Table.from_pydict({k: list(first[k]) for k in MANIFEST_SCHEMA.names}, schema=MANIFEST_SCHEMA), tmp
        )
    summary = synthesize.finish(out, 1.0, 3, 1, curated, library_dir, profile, encode)
    assert (summary["ok"], summary["error"]) == (2, 1)
    assert storage.read_bytes(f"{out}/summary.json").startswith(b"{")
    assert storage.exists(f"{out}/report_frames.png") and b"c0_s1_00000" in storage.read_bytes(f"{out}/report.html")

    cases = load_cases(out)  # what removal and evaluation take as --cases
    assert [c.case_id for c in cases] == ["c0_s1_00000", "c1_s1_00001"] and cases[0].frame_count == 15
    with local_case(cases[0]) as (case, _):
        assert not case.source.startswith("s3://") and os.path.isfile(case.mask)
        assert open(case.source, "rb").read() == storage.read_bytes(f"{out}/samples/c0_s1_00000/hud.mp4")
