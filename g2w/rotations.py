"""Rotation conventions shared by everything that writes or reads camera poses.

Quaternions are (x, y, z, w) with w >= 0, as scipy and ROS write them; matrices are 3x3
camera-to-world rotations in OpenCV's camera axes (x right, y down, z forward).
"""

from __future__ import annotations

import math

import numpy as np


def rotation_ypr(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """Camera-to-world rotation (radians): yaw about y (down), then pitch about x, then roll about z."""
    cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    cr, sr = math.cos(roll), math.sin(roll)
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rx = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rz = np.array([[cr, -sr, 0], [sr, cr, 0], [0, 0, 1]])
    return ry @ rx @ rz


def quaternion(r: np.ndarray) -> np.ndarray:
    """(x, y, z, w) unit quaternion of a rotation matrix, w >= 0."""
    w = math.sqrt(max(0.0, 1 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    x = math.copysign(math.sqrt(max(0.0, 1 + r[0, 0] - r[1, 1] - r[2, 2])) / 2, r[2, 1] - r[1, 2])
    y = math.copysign(math.sqrt(max(0.0, 1 - r[0, 0] + r[1, 1] - r[2, 2])) / 2, r[0, 2] - r[2, 0])
    z = math.copysign(math.sqrt(max(0.0, 1 - r[0, 0] - r[1, 1] + r[2, 2])) / 2, r[1, 0] - r[0, 1])
    q = np.array([x, y, z, w])
    return q / np.linalg.norm(q)


def matrices(quats: np.ndarray) -> np.ndarray:
    """(n, 3, 3) rotation matrices of (n, 4) (x, y, z, w) quaternions."""
    q = np.asarray(quats, np.float64)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
            np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
            np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1),
        ],
        1,
    )


def angle_deg(r: np.ndarray) -> np.ndarray:
    """Rotation angle (degrees) of one (3, 3) or many (n, 3, 3) rotation matrices."""
    trace = np.trace(np.asarray(r), axis1=-2, axis2=-1)
    return np.degrees(np.arccos(np.clip((trace - 1) / 2, -1.0, 1.0)))


def nearest_rotation(m: np.ndarray) -> np.ndarray:
    """The rotation closest to a 3x3 matrix (Frobenius), its scale and reflection removed."""
    u, _, vt = np.linalg.svd(m)
    r = u @ vt
    if np.linalg.det(r) < 0:
        r = u @ np.diag([1, 1, -1]) @ vt
    return r


def yaw_pitch_roll_deg(rs: np.ndarray) -> np.ndarray:
    """(n, 3) yaw, pitch, roll (degrees, unwrapped over n) of (n, 3, 3) rotations built as
    `rotation_ypr` builds them."""
    rs = np.asarray(rs)
    pitch = np.arcsin(np.clip(-rs[:, 1, 2], -1, 1))
    yaw = np.arctan2(rs[:, 0, 2], rs[:, 2, 2])
    roll = np.arctan2(rs[:, 1, 0], rs[:, 1, 1])
    return np.degrees(np.unwrap(np.stack([yaw, pitch, roll], 1), axis=0))
