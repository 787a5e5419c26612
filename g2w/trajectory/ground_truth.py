"""Estimated trajectories scored against a known camera (the procedural walkthrough's sidecar,
or an engine's logged view angles).

Rotation error is measured on relative rotations over a fixed span (`span_s`), which do not
depend on either trajectory's world frame: for every frame i, the angle between the true and
the estimated rotation from frame i to frame i + span, divided by the span, in degrees per
second. A frame whose span crosses a shot change is left out.
"""

from __future__ import annotations

import numpy as np

from g2w.rotations import angle_deg, matrices


def rotation_error_deg_s(
    times: np.ndarray, est: np.ndarray, gt: np.ndarray, span_s: float = 1.0, valid: np.ndarray | None = None
) -> dict:
    """Mean, median and 95th percentile of the relative-rotation error (deg/s) over `span_s`;
    `est`, `gt`: (n, 3, 3) camera-to-world rotations at `times`; `valid`: frames that may start
    or end a span."""
    times = np.asarray(times)
    n = len(times)
    if n < 2:
        return {"mean": float("nan"), "median": float("nan"), "p95": float("nan"), "spans": 0}
    fps = (n - 1) / max(times[-1] - times[0], 1e-9)
    step = max(1, int(round(span_s * fps)))
    i = np.arange(0, n - step)
    ok = np.ones(len(i), bool) if valid is None else valid[i] & valid[i + step]
    i = i[ok]
    if not len(i):
        return {"mean": float("nan"), "median": float("nan"), "p95": float("nan"), "spans": 0}
    rel_est = np.einsum("nji,njk->nik", est[i], est[i + step])
    rel_gt = np.einsum("nji,njk->nik", gt[i], gt[i + step])
    err = angle_deg(np.einsum("nji,njk->nik", rel_gt, rel_est)) / (step / fps)
    return {
        "mean": float(err.mean()),
        "median": float(np.median(err)),
        "p95": float(np.percentile(err, 95)),
        "spans": int(len(i)),
    }


def sidecar_rotations(camera: dict[str, np.ndarray]) -> np.ndarray:
    """(n, 3, 3) camera-to-world rotations of a walkthrough sidecar's camera columns."""
    return matrices(np.stack([camera[c] for c in ("qx", "qy", "qz", "qw")], axis=1))
