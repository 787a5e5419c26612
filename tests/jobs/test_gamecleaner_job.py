"""GameCleaner end to end on the tiny preset: precache (with a bad pair) -> FSDP2 training on Ray
Train (refusing the error row unless told) -> removal through the remove job. Evaluation of its
output, with the demo's settings (1 DDP worker), is covered by tests/jobs/test_demo.py."""

import json
import os

import cv2
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from g2w.jobs.gamecleaner_precache import run_precache
from g2w.jobs.gamecleaner_train import run_train
from g2w.jobs.options import GameCleanerTrainOptions, PrecacheOptions
from g2w.jobs.remove import run_remove
from g2w.models.gamecleaner.clips import PairError, load_pair
from g2w.models.gamecleaner.presets import get_preset
from g2w.video import probe


def _bad_synthesis(root, make_video):
    """A synthesis-like folder whose one sample has 30 source but 20 target frames."""
    sample = os.path.join(root, "samples", "mismatch")
    os.makedirs(sample)
    os.replace(make_video("hud.mp4", frames=30), os.path.join(sample, "hud.mp4"))
    os.replace(make_video("clean.mp4", frames=20), os.path.join(sample, "clean.mp4"))
    pq.write_table(
        pa.Table.from_pylist([{"sample_id": "mismatch", "status": "ok"}]), os.path.join(root, "manifest.parquet")
    )
    return root


def test_mismatched_pair_is_a_pair_error(tmp_path, make_video):
    root = _bad_synthesis(str(tmp_path / "bad"), make_video)
    with pytest.raises(PairError) as err:
        load_pair(os.path.join(root, "samples", "mismatch"), get_preset("tiny"))
    assert err.value.reason == "frame_count_mismatch"


@pytest.mark.slow
def test_precache_train_fsdp_remove(ray_local, synth_out, tmp_path, make_video):
    bad = _bad_synthesis(str(tmp_path / "bad"), make_video)
    cache = str(tmp_path / "cache")
    summary = run_precache(PrecacheOptions([synth_out, bad], cache, "tiny"))
    assert (summary["ok"], summary["errors_by_reason"]) == (2, {"frame_count_mismatch": 1})
    assert len(os.listdir(os.path.join(cache, "shards"))) == 2
    assert run_precache(PrecacheOptions([synth_out, bad], cache, "tiny"))["skipped"] == 2  # resumable

    run = str(tmp_path / "run")
    with pytest.raises(ValueError, match="1 of 3 pairs are error rows"):
        run_train(GameCleanerTrainOptions(cache, run, steps=2, global_batch=2))
    # FSDP2 over 2 gloo workers: the 14B preset's path, sharding the tiny DiT's blocks
    trained = run_train(
        GameCleanerTrainOptions(
            cache,
            run,
            steps=2,
            global_batch=2,
            checkpoint_every=2,
            skip_errors=True,
            cpus_per_worker=0.5,
            num_workers=2,
            parallel="fsdp",
        )
    )
    assert trained["steps"] == 2 and trained["skipped_error_rows"] == 1
    assert os.path.exists(os.path.join(run, "weights.safetensors"))
    report = open(os.path.join(run, "report.html")).read()
    assert "loss_curve.png" in report and "_output.png" in report
    assert "a training pair" not in report  # of the 2 ok pairs, one trained and one was held out

    # the user's reference images: one of another size and aspect (resized), one unreadable (an error row)
    references = tmp_path / "references"
    references.mkdir()
    cv2.imwrite(str(references / "s000.png"), np.full((90, 250, 3), 120, np.uint8))
    (references / "s001.jpg").write_bytes(b"\xff\xd8 truncated")
    removed = str(tmp_path / "removed")
    result = run_remove(
        "gamecleaner",
        synth_out,
        removed,
        {"checkpoint": run, "steps": 2, "sampler": "unipc", "reference_image": str(references)},
    )
    assert (result["ok"], result["error"], result["errors_by_reason"]) == (1, 1, {"reference_unreadable": 1})
    edit = probe(os.path.join(removed, "s000.mp4"))
    # the tiny preset's overlapping 17-frame windows cover the whole 3 s 30 fps source, written at its own rate
    assert (edit.frame_count, edit.fps, edit.width, edit.height) == (90, 30.0, 320, 180)
    method = json.load(open(os.path.join(removed, "method.json")))
    assert (method["ref_pt"], method["reference"], method["reference_oracle"]) == (True, "image", False)
    assert method["options"]["sampler"] == "unipc"


def test_training_refuses_error_rows_and_a_cache_of_the_wrong_kind(tmp_path):
    from g2w.models.gamecleaner.task import GameCleanerTask

    rows = [{"status": "ok", "path": "a.safetensors"}, {"status": "error", "path": "b.safetensors"}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "index.parquet")
    (tmp_path / "cache.json").write_text(json.dumps({"kind": "states"}))
    with pytest.raises(ValueError, match="1 of 2 pairs are error rows"):
        GameCleanerTask(str(tmp_path))
    task = GameCleanerTask(str(tmp_path), skip_errors=True)
    assert (task.skipped, task.num_examples(), task.paths) == (1, 1, [str(tmp_path / "a.safetensors")])
    with pytest.raises(ValueError, match="needs context"):
        GameCleanerTask(str(tmp_path), checkpoint="w.safetensors", skip_errors=True)
