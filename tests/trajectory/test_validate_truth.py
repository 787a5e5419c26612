"""Validation against real players' motion: the yaw that Freedoom's demos command (replayed
exactly by the engine) is ordinary play and must pass; an impulse no turn makes, or shaking
rougher than any play, must not. Also the demo reader, on a built demo and on the real IWAD."""

from __future__ import annotations

import os

import numpy as np
import pytest

from g2w.capture.demo_truth import (
    DEGREES_PER_TURN_UNIT,
    TICRATE,
    clip_yaw_deg,
    commanded_yaw_deg,
    rotations_from_yaw,
    view_truth,
    yaw_at,
)
from g2w.capture.wad import demo_lumps, demo_tics, read_lump
from g2w.rotations import rotation_ypr
from g2w.trajectory.estimate import RawTrajectory
from g2w.trajectory.validate import validate

IWAD = "/usr/share/games/doom/freedoom2.wad"  # installed by `make test` (scripts/capture-deps.sh)
FPS = 30.0


def perfect(rotations: np.ndarray) -> RawTrajectory:
    n = len(rotations)
    return RawTrajectory(
        np.arange(n) / FPS,
        rotations,
        np.zeros((n, 3)),
        np.ones(n),
        ["homography"] * n,
        np.full(n, 300, np.int32),
        np.full(n, 300, np.int32),
        np.zeros(n, bool),
    )


def _demo(turns_by_player: list[list[int]], console: int) -> bytes:
    players = len(turns_by_player)
    head = bytes([109, 2, 1, 1, 0, 0, 0, 0, console] + [1] * players + [0] * (4 - players))
    body = bytearray()
    for tic in zip(*turns_by_player):
        for turn in tic:
            body += bytes([25, 0, turn & 0xFF, 0])
    return head + bytes(body) + b"\x80"


def test_commanded_yaw_follows_the_console_player():
    demo = _demo([[5] * 10, [2, 2, 2, -3, -3, 0, 0, 0, 0, 0], [-7] * 10], console=1)
    yaw = commanded_yaw_deg(demo)
    assert len(yaw) == 11 and demo_tics(demo) == 10
    np.testing.assert_allclose(np.diff(yaw), np.array([2, 2, 2, -3, -3, 0, 0, 0, 0, 0]) * DEGREES_PER_TURN_UNIT)
    # between tics the view is interpolated; past the end there is no truth
    np.testing.assert_allclose(yaw_at(yaw, 0, np.array([0.5 / TICRATE, 20 / TICRATE])), [yaw[1] / 2, np.nan])
    with pytest.raises(ValueError):
        commanded_yaw_deg(b"\x6e" + demo[1:])  # another demo version


def test_a_left_turn_is_a_negative_yaw_in_camera_axes():
    r = rotations_from_yaw(np.array([0.0, 90.0]))
    np.testing.assert_allclose(r[1], rotation_ypr(-np.pi / 2, 0.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(r[1] @ [0, 0, 1], [-1, 0, 0], atol=1e-12)  # forward swings to the left


@pytest.fixture(scope="module")
def real_play() -> list[np.ndarray]:
    assert os.path.exists(IWAD), "freedoom2.wad is missing: run scripts/capture-deps.sh freedoom"
    yaw = commanded_yaw_deg(read_lump(IWAD, demo_lumps(IWAD)[0]))
    times = np.arange(0, 20, 1 / FPS)
    return [rotations_from_yaw(yaw_at(yaw, int(s * TICRATE), times)) for s in np.arange(0, len(yaw) / TICRATE - 20, 10)]


def test_real_play_passes_validation(real_play):
    assert len(real_play) >= 3
    for rotations in real_play:
        check = validate(perfect(rotations))
        assert check["status"] == "accepted", check
    # and it is fast play, which the old bound of 400 deg/s on turn speed would have called jumps
    assert max(validate(perfect(r))["max_step_deg_s"] for r in real_play) > 800


def test_an_impulse_and_a_shake_rougher_than_play_are_rejected(real_play):
    yaw = np.cumsum(np.full(150, 1.0))  # a steady 30 deg/s turn
    impulse = yaw.copy()
    impulse[75:] += 150.0  # a 150 degree turn between two frames, and back to the steady turn
    check = validate(perfect(rotations_from_yaw(impulse)))
    assert check["reason"] == "jump" and check["jump_times_s"] == [2.5], check
    rng = np.random.default_rng(0)
    shaken = [rotations_from_yaw(yaw)[i] @ rotation_ypr(*np.radians(rng.normal(0, 12.0, 3))) for i in range(150)]
    assert "jitter" in validate(perfect(np.stack(shaken)))["checks_failed"]


def test_clip_truth_reads_the_demo_at_the_clip_start():
    assert os.path.exists(IWAD)
    yaw = commanded_yaw_deg(read_lump(IWAD, "DEMO1"))
    times = np.arange(5) / FPS
    # frame k of a clip starting 12 s in shows tic 12 * 35 + (k + the dropped warm-up frame) * 35 / 30
    expected = yaw_at(yaw, 12 * TICRATE, times + 1 / FPS)
    np.testing.assert_allclose(clip_yaw_deg("freedoom2-demo1-s0012", times, FPS), expected)
    assert clip_yaw_deg("cube2-cyber1-s0007", times, FPS) is None


def test_case_sidecar_truth_is_the_demo_yaw_per_frame():
    truth = view_truth("freedoom2-demo1-s0013", 60, 30.0)
    yaw = clip_yaw_deg("freedoom2-demo1-s0013", np.arange(60) / 30.0, 30.0)
    assert truth["source"] == "demo commands" and len(truth["view_yaw_deg"]) == 60
    assert np.allclose(truth["view_yaw_deg"], yaw, atol=1e-3)
    assert view_truth("cube2-zoomin-s0007", 60, 30.0) is None
