"""The walkthrough's sidecar carries its true camera, transitions and events."""

import numpy as np

from g2w.rotations import angle_deg
from g2w.sample_data.walkthrough import WalkSpec, Walkthrough, camera_table
from g2w.trajectory.ground_truth import sidecar_rotations


def test_sidecar_camera_matches_the_spec():
    spec = WalkSpec(seed=1, width=64, height=36, fps=10, shot_s=(4.0, 3.0), transitions=("dissolve",), jumps_s=(2.0,))
    side = Walkthrough(spec).sidecar("w.mp4")
    cam = camera_table(side)
    assert len(cam["time_s"]) == spec.frame_count == 70
    assert side["transitions"] == [{"time_s": 4.0, "kind": "dissolve", "duration_s": 1.5}]
    assert abs(side["intrinsics"]["fx"] - side["intrinsics"]["cx"]) < 1e-9  # hfov 90: f = width / 2
    rs = sidecar_rotations(cam)
    steps = angle_deg(np.einsum("nji,njk->nik", rs[:-1], rs[1:]))
    assert steps[19] > 35 and np.delete(steps, [19, 39]).max() < 10  # the jump, between frames 19 and 20
    assert set(cam["shot"]) == {0, 1}


def test_frames_are_a_pure_function_of_the_spec():
    spec = WalkSpec(seed=2, width=320, height=180, fps=10, shot_s=(2.0,), hud=True)
    assert np.array_equal(Walkthrough(spec).frame(7), Walkthrough(spec).frame(7))
