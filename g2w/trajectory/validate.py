"""Is a trajectory fit to train on? Jumps, jitter and drift, each scored and checked in turn.

Players turn fast: mouse flicks of tens of degrees in one frame and bursts of keyboard turning
are ordinary play, so no check is a bound on how fast the camera turns. The bounds sit above
the roughest motion that real players command (the turns recorded in Doom demos, which the
engine replays exactly; docs/results/trajectory_validation.md has them by game, out of sample).

- **Jumps**: a discontinuity. A break (two frames that both have corners but that no camera
  pose relates: a respawn, a teleport, a cut the segmenter missed), or an angular velocity that
  departs from the median of its `jump_context` neighbours on either side by more than
  `max_departure_deg_s` (an impulse no player's turn makes, in practice a failed estimate).
  Counted; more than `max_jumps` rejects. The breaks' own times are kept apart
  (`break_times_s`): the view left its place inside a segment the cut cues left whole, which is
  how a respawn or a teleport inside one map looks (the dataset's `in_game_jumps`).
- **Jitter**: high-frequency energy of the angular velocity, the RMS of what a centred moving
  average over `smooth_frames` frames leaves, in degrees per second, over sliding windows of
  `jitter_window_s`; the worst window above `max_jitter_deg_s` rejects (a shaking recording or
  a noisy estimate: rougher than any player's own input).
- **Drift**: the global smoothness term. The angular velocity's low-pass over `smooth_frames`
  against its trend over `drift_window_s`, RMS in degrees per second (slow wobble around the
  trend) above `max_drift_deg_s` rejects.
- **Coverage**: at least `min_valid_fraction` of frames must have a pose; a video with no
  trackable corners at all (black, flat, all HUD) is `no_features`.
The first failing check, in this order (no_features, tracking_lost, jump, jitter, drift), is the
reason; every score is kept whatever the verdict.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from g2w.rotations import angle_deg
from g2w.trajectory.estimate import RawTrajectory

REASONS = ("no_features", "tracking_lost", "jump", "jitter", "drift")


@dataclass(frozen=True)
class ValidationConfig:
    max_departure_deg_s: float = 2500.0
    jump_context: int = 3
    max_jumps: int = 0
    smooth_frames: int = 9
    jitter_window_s: float = 2.0
    max_jitter_deg_s: float = 400.0
    drift_window_s: float = 4.0
    max_drift_deg_s: float = 180.0
    min_valid_fraction: float = 0.9
    min_corners: int = 25


def rotation_vectors_deg(rs: np.ndarray) -> np.ndarray:
    """(n-1, 3) per-step rotation vectors (degrees) in the camera frame of each earlier frame."""
    rel = np.einsum("nji,njk->nik", rs[:-1], rs[1:])
    angle = np.radians(angle_deg(rel))
    axis = np.stack([rel[:, 2, 1] - rel[:, 1, 2], rel[:, 0, 2] - rel[:, 2, 0], rel[:, 1, 0] - rel[:, 0, 1]], 1)
    norm = np.linalg.norm(axis, axis=1, keepdims=True)
    unit = np.where(norm > 1e-12, axis / np.maximum(norm, 1e-12), 0.0)
    return np.degrees(unit * angle[:, None])


def _moving_average(x: np.ndarray, width: int) -> np.ndarray:
    width = max(1, min(width, len(x)))
    kernel = np.ones(width) / width
    pad = width // 2
    padded = np.pad(x, ((pad, width - 1 - pad), (0, 0)), mode="edge")
    return np.stack([np.convolve(padded[:, k], kernel, mode="valid") for k in range(x.shape[1])], 1)


def departures(omega_deg_s: np.ndarray, context: int) -> np.ndarray:
    """(n-1,) deg/s by which each step's angular velocity departs from the per-axis median of its
    `context` neighbours on either side (itself left out): large only for an isolated impulse."""
    n = len(omega_deg_s)
    out = np.zeros(n)
    for i in range(n):
        around = np.r_[omega_deg_s[max(0, i - context) : i], omega_deg_s[i + 1 : i + 1 + context]]
        if len(around):
            out[i] = np.linalg.norm(omega_deg_s[i] - np.median(around, axis=0))
    return out


def jitter_scores(omega_deg_s: np.ndarray, fps: float, cfg: ValidationConfig) -> np.ndarray:
    """RMS (deg/s) of the high-frequency angular velocity per sliding window."""
    if len(omega_deg_s) < 3:
        return np.zeros(0)
    high = omega_deg_s - _moving_average(omega_deg_s, cfg.smooth_frames)
    energy = np.sum(high**2, axis=1)
    w = max(2, int(round(cfg.jitter_window_s * fps)))
    if len(energy) <= w:
        return np.array([np.sqrt(energy.mean())])
    csum = np.r_[0, np.cumsum(energy)]
    return np.sqrt((csum[w:] - csum[:-w]) / w)


def drift_score(omega_deg_s: np.ndarray, fps: float, cfg: ValidationConfig) -> float:
    """Deg/s of slow wobble: the angular velocity's low-pass over `drift_window_s` against its
    low-pass over `smooth_frames`, RMS (what is neither the motion's trend nor jitter)."""
    if len(omega_deg_s) < 3:
        return 0.0
    trend = _moving_average(omega_deg_s, int(round(cfg.drift_window_s * fps)))
    local = _moving_average(omega_deg_s, cfg.smooth_frames)
    return float(np.sqrt(np.mean(np.sum((local - trend) ** 2, axis=1))))


def validate(raw: RawTrajectory, cfg: ValidationConfig = ValidationConfig()) -> dict:
    """{status: accepted|rejected, reason, and every score}."""
    n = len(raw.times)
    fps = (n - 1) / max(raw.times[-1] - raw.times[0], 1e-9) if n > 1 else 0.0
    valid = np.array([m != "none" for m in raw.methods]) if n else np.zeros(0, bool)
    scores = {
        "frames": n,
        "fps": round(fps, 3),
        "valid_fraction": float(valid.mean()) if n else 0.0,
        "median_corners": float(np.median(raw.corners)) if n else 0.0,
        "jumps": 0,
        "jump_times_s": [],
        "break_times_s": [],
        "max_step_deg_s": 0.0,
        "max_departure_deg_s": 0.0,
        "jitter_deg_s": 0.0,
        "drift_deg_s": 0.0,
    }
    if n > 1:
        omega = rotation_vectors_deg(raw.rotations) * fps
        speed = np.linalg.norm(omega, axis=1)
        departure = departures(omega, cfg.jump_context)
        fast = np.flatnonzero(departure > cfg.max_departure_deg_s) + 1
        jumps = np.union1d(fast, np.flatnonzero(raw.breaks))
        jitter = jitter_scores(omega, fps, cfg)
        scores.update(
            jumps=int(len(jumps)),
            jump_times_s=[round(float(raw.times[j]), 3) for j in jumps],
            break_times_s=[round(float(raw.times[j]), 3) for j in np.flatnonzero(raw.breaks)],
            max_step_deg_s=float(speed.max()),
            max_departure_deg_s=float(departure.max()),
            jitter_deg_s=float(jitter.max()) if len(jitter) else 0.0,
            drift_deg_s=drift_score(omega, fps, cfg),
        )
    failed = []
    if n == 0 or scores["median_corners"] < cfg.min_corners:
        failed.append("no_features")
    if scores["valid_fraction"] < cfg.min_valid_fraction:
        failed.append("tracking_lost")
    if scores["jumps"] > cfg.max_jumps:
        failed.append("jump")
    if scores["jitter_deg_s"] > cfg.max_jitter_deg_s:
        failed.append("jitter")
    if scores["drift_deg_s"] > cfg.max_drift_deg_s:
        failed.append("drift")
    return {
        "status": "rejected" if failed else "accepted",
        "reason": failed[0] if failed else "",
        "checks_failed": failed,
        **scores,
        "config": asdict(cfg),
    }
