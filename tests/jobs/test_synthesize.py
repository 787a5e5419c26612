"""The synthesize job: clip listing, the step (render, reuse, error rows) and one local Ray run."""

import json
import os
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from g2w.hud.profile import SynthProfile
from g2w.hud.render import EncodeSettings
from g2w.jobs.synthesize import MANIFEST_SCHEMA, SynthesizeSamples, list_clips, plan_rows, run_synthesize
from tests.hud.conftest import gameplay_frames, write_clip


@pytest.fixture(scope="module")
def curated(tmp_path_factory):
    """A folder in the curation output contract's shape: manifest.parquet plus clips/<id>.mp4."""
    root = tmp_path_factory.mktemp("clips")
    os.makedirs(root / "clips")
    for k, style in enumerate(("topdown", "racing")):
        write_clip(root / "clips" / f"c{k}.mp4", gameplay_frames(256, 144, 30, style, seed=k))
    (root / "clips" / "c9.mp4").write_bytes(b"\x00\x00\x00\x18ftypisom" + b"\x00" * 64)  # kept but broken
    rows = [
        {"clip_id": "c0", "status": "kept", "reason": ""},
        {"clip_id": "c1", "status": "kept", "reason": ""},
        {"clip_id": "c5", "status": "rejected", "reason": "dark"},
        {"clip_id": "c9", "status": "kept", "reason": ""},
        {"clip_id": "c7", "status": "error", "reason": "corrupt"},
    ]
    pq.write_table(pa.Table.from_pylist(rows), root / "manifest.parquet")
    return str(root)


def test_clips_come_from_a_curation_manifest_or_a_plain_folder(curated, tmp_path):
    assert [c["clip_id"] for c in list_clips(curated)] == ["c0", "c1", "c9"]
    plain = tmp_path / "plain"
    plain.mkdir()
    for name in ("b.mp4", "a.mp4", "notes.txt"):
        (plain / name).write_bytes(b"x")
    assert [c["clip_id"] for c in list_clips(str(plain))] == ["a", "b"]
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no kept clips"):
        list_clips(str(tmp_path / "empty"))
    rows = plan_rows(list_clips(curated), 5, seed=7)
    assert [r["sample_id"] for r in rows] == ["c0_s7_00000", "c1_s7_00001", "c9_s7_00002", "c0_s7_00003", "c1_s7_00004"]
    assert len({r["seed"] for r in rows}) == 5 and rows == plan_rows(list_clips(curated), 5, seed=7)


def test_the_step_renders_reuses_finished_samples_and_keeps_bad_clips_as_rows(curated, library_dir, tmp_path):
    plain = tmp_path / "plain"  # a plain folder of mp4 (clip ids are the file stems)
    plain.mkdir()
    for name in ("c0.mp4", "c1.mp4", "c9.mp4"):
        shutil.copy(os.path.join(curated, "clips", name), plain / name)
    rows = plan_rows(list_clips(str(plain)), 3, seed=1)
    batch = {k: np.array([r[k] for r in rows]) for k in ("sample_id", "clip_id", "clip_path", "seed")}
    step = SynthesizeSamples(
        library_dir,
        str(tmp_path),
        SynthProfile(duration_s=0.5).to_dict(),
        dict(EncodeSettings(23, "ultrafast").__dict__),
        "cpu",
    )
    step.setup()
    first = step(batch)
    assert set(first) == set(MANIFEST_SCHEMA.names)
    assert list(first["status"]) == ["ok", "ok", "error"] and first["reason"][2] == "corrupt"
    assert list(first["frame_count"][:2]) == [15, 15] and not any(first["reused"])
    done = tmp_path / "samples" / "c0_s1_00000" / "hud.mp4"
    stamp = done.stat().st_mtime_ns
    second = step(batch)
    assert list(second["reused"]) == [True, True, False] and second["render_s"][0] == 0.0
    assert done.stat().st_mtime_ns == stamp  # not rendered again
    for name in ("style", "persistent", "events", "instances", "width", "frame_count"):
        assert list(second[name][:2]) == list(first[name][:2])
    assert sorted(os.listdir(tmp_path / "samples")) == ["c0_s1_00000", "c1_s1_00001"]  # nothing half-written
    assert first["clip_path"][0] == str(plain / "c0.mp4")


def test_synthesize_job_on_local_ray(ray_local, curated, library_dir, tmp_path):
    summary = run_synthesize(
        curated,
        library_dir,
        str(tmp_path),
        count=3,
        seed=0,
        profile=SynthProfile(duration_s=1.0),
        encode=EncodeSettings(23, "ultrafast"),
    )
    table = pq.read_table(tmp_path / "manifest.parquet")
    assert table.schema.equals(MANIFEST_SCHEMA) and table.num_rows == 3
    rows = {r["sample_id"]: r for r in table.to_pylist()}
    assert rows["c9_s0_00002"]["status"] == "error" and rows["c9_s0_00002"]["reason"] == "corrupt"
    for sid in ("c0_s0_00000", "c1_s0_00001"):
        r = rows[sid]
        assert r["status"] == "ok" and (r["width"], r["height"], r["frame_count"]) == (256, 144, 30)
        assert os.path.exists(os.path.join(r["sample_dir"], "record.json"))
    assert (summary["ok"], summary["error"], summary["errors_by_reason"]) == (2, 1, {"corrupt": 1})
    assert json.loads((tmp_path / "summary.json").read_text())["ok"] == 2
    assert "report_frames.png" in (tmp_path / "report.html").read_text()
    assert (tmp_path / "report_frames.png").stat().st_size > 10_000
