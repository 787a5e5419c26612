"""The classical estimator against the walkthrough's true camera; validation catching injected
jumps and jitter; bad input (nothing to track, an unreadable file) and resuming, through the
`g2w trajectory` command, and a stage the machine cannot run failing it with the stage named."""

import json
import os
import time

import numpy as np
import pyarrow.parquet as pq
import pytest

from g2w.cli import main
from g2w.sample_data.walkthrough import WalkSpec, camera_table, write_walkthrough
from g2w.trajectory.estimate import estimate
from g2w.trajectory.ground_truth import rotation_error_deg_s, sidecar_rotations
from g2w.trajectory.table import read_record
from g2w.trajectory.validate import validate

SMALL = dict(width=320, height=180, fps=15)


@pytest.fixture(scope="module")
def walks(tmp_path_factory):
    root = tmp_path_factory.mktemp("walks")
    return {
        "clean": write_walkthrough(WalkSpec(seed=4, shot_s=(6.0,), **SMALL), root),
        "jump": write_walkthrough(WalkSpec(seed=5, shot_s=(6.0,), jumps_s=(3.0,), **SMALL), root),
        "jitter": write_walkthrough(WalkSpec(seed=6, shot_s=(6.0,), jitter_spans_s=((2.0, 4.0),), **SMALL), root),
        "uniform": write_walkthrough(WalkSpec(seed=7, shot_s=(3.0,), uniform=True, **SMALL), root),
    }


def test_rotation_matches_ground_truth(walks):
    raw = estimate(walks["clean"], hfov_deg=90.0)
    gt = sidecar_rotations(camera_table(json.load(open(walks["clean"][:-4] + ".json"))))
    err = rotation_error_deg_s(raw.times, raw.rotations, gt[: len(raw.times)])
    assert err["spans"] > 50 and err["median"] < 3.0, err  # the walk turns at about 25 deg/s
    assert validate(raw)["status"] == "accepted"


def test_field_of_view_is_estimated(walks):
    raw = estimate(walks["clean"])
    assert raw.info["hfov_source"] == "estimated" and abs(raw.info["hfov_deg"] - 90.0) <= 8, raw.info


def test_jumps_and_jitter_are_rejected(walks):
    jump = validate(estimate(walks["jump"], hfov_deg=90.0))
    assert jump["status"] == "rejected" and jump["reason"] == "jump"
    assert any(abs(t - 3.0) < 0.2 for t in jump["jump_times_s"]), jump["jump_times_s"]
    assert [round(t) for t in jump["break_times_s"]] == [3], jump  # a teleport, not a fast turn: an in-game jump
    # a shake rougher than play: the tracker follows it in part and loses it in part; either way rejected
    jitter = validate(estimate(walks["jitter"], hfov_deg=90.0))
    assert jitter["status"] == "rejected", jitter
    assert set(jitter["checks_failed"]) & {"jitter", "jump", "tracking_lost"}, jitter


def test_command_bad_input_and_resume(walks, tmp_path):
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video")
    out = tmp_path / "traj"
    argv = ["trajectory", walks["clean"], walks["uniform"], str(broken), "--output", str(out), "--hfov-deg", "90"]
    assert main(argv) == 0
    rows = {r["video"]: r for r in pq.read_table(out / "trajectory.parquet").to_pylist()}
    assert rows[walks["clean"]]["trajectory_status"] == "accepted"
    assert (rows[walks["uniform"]]["trajectory_status"], rows[walks["uniform"]]["trajectory_reason"]) == (
        "rejected",
        "no_features",
    )
    assert (rows[str(broken)]["trajectory_status"], rows[str(broken)]["trajectory_reason"]) == ("error", "unreadable")
    path = rows[walks["clean"]]["trajectory_path"]
    table = pq.read_table(path)
    assert table.column_names[:8] == ["time_s", "qx", "qy", "qz", "qw", "tx", "ty", "tz"]
    q = np.stack([table.column(c).to_numpy() for c in ("qx", "qy", "qz", "qw")], 1)
    assert np.allclose(np.linalg.norm(q, axis=1), 1.0)
    assert read_record(path)["intrinsics"]["hfov_deg"] == 90.0
    before = (tmp_path / "traj" / "trajectories").stat().st_mtime_ns, open(path, "rb").read()
    assert main(argv) == 0  # resumes: the finished file is read, not rewritten
    assert open(path, "rb").read() == before[1]


def test_a_stage_that_cannot_run_fails_the_command_naming_it(walks, tmp_path, monkeypatch, capsys):
    """`--stall-s` on a job other than evaluation: the trajectory stage asks for more CPUs than the
    machine has, so it never runs; the command fails within seconds, naming it, and writes nothing."""
    from g2w.step import Resources
    from g2w.trajectory.step import EstimateTrajectories

    monkeypatch.setattr(EstimateTrajectories, "resources", lambda self: Resources(num_cpus=64, batch_size=1))
    monkeypatch.delenv("G2W_STAGE_STALL_S", raising=False)
    out = tmp_path / "traj"
    start = time.monotonic()
    assert main(["trajectory", walks["uniform"], "--output", str(out), "--stall-s", "3"]) == 1
    assert time.monotonic() - start < 60
    assert "g2w trajectory: stage EstimateTrajectories made no progress for 3 s" in capsys.readouterr().err
    assert not (out / "trajectory.parquet").exists()
    assert "G2W_STAGE_STALL_S" not in os.environ  # the flag held for the command only
