"""`g2w detect` on Ray: outputs per video, accepted by evaluation; bad inputs become error rows."""

import json
import os
import shutil

import numpy as np
import pyarrow.parquet as pq

from g2w.cases.annotation import load_annotation
from g2w.cases.case import load_cases
from g2w.evaluate.prepare import prepare_case
from g2w.jobs.detect import run_detect
from g2w.jobs.options import DetectOptions
from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.video import probe, read_masks
from tests.bad_videos import bad_and_odd_videos


def test_detect_writes_evaluable_annotations_and_survives_bad_inputs(synth_out, tmp_path, ray_local):
    checkpoint = str(tmp_path / "ckpt")
    HudSegmenter(HudSegmenterConfig.tiny()).save_pretrained(checkpoint)  # real code path, tiny random weights
    cases = load_cases(synth_out)
    odd = bad_and_odd_videos(str(tmp_path / "odd"), cases[0].source)
    out = str(tmp_path / "detect")
    summary = run_detect(DetectOptions([c.source for c in cases] + list(odd.values()), out, checkpoint))
    rows = {r["video"]: r for r in pq.read_table(os.path.join(out, "manifest.parquet")).to_pylist()}
    assert summary["videos"] == len(cases) + len(odd)
    assert rows[os.path.abspath(odd["corrupt"])]["status"] == "error"
    assert rows[os.path.abspath(odd["truncated"])]["status"] in ("ok", "error")  # what decodes is kept
    for name in ("tiny", "portrait", "fast"):
        row = rows[os.path.abspath(odd[name])]
        assert row["status"] == "ok", row
        info = probe(odd[name])
        masks = read_masks(os.path.join(row["out_dir"], "mask.mkv"))
        assert masks.shape == (info.frame_count, info.height, info.width)
        assert set(np.unique(masks)) <= {0, 255}
    # every finished video is a wild case that evaluation accepts, with identity as the edit
    edited = tmp_path / "identity"
    edited.mkdir()
    detected = load_cases(os.path.join(out, "cases.jsonl"))
    assert {c.source for c in detected} >= {c.source for c in cases}
    for case in detected:
        if case.source in {c.source for c in cases}:
            shutil.copyfile(case.source, case.edited_path(str(edited)))
            ann = load_annotation(case.annotation)
            assert ann.frame_count == probe(case.source).frame_count
            result = prepare_case(case, str(edited), str(tmp_path / "evidence"), (320, 180))
            assert result["status"] == "ready", result
    # a rerun reuses finished videos
    again = run_detect(DetectOptions([cases[0].source], out, checkpoint))
    assert again["skipped"] == 1
    with open(os.path.join(out, "summary.json")) as f:
        assert json.load(f)["videos"] == 1


def test_detect_file_is_the_services_detector(make_video, tmp_path):
    """The function the removal service's Detector names writes the same three outputs."""
    from g2w.jobs.detect import detect_file

    video = make_video("clip.mp4", frames=12, width=160, height=96)
    out = tmp_path / "one"
    assert detect_file(video, str(out)) == 12
    assert sorted(os.listdir(out)) == ["annotation.json", "mask.mkv", "preview.png"]
    assert len(read_masks(str(out / "mask.mkv"))) == 12
