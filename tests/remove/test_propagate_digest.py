"""The propagation fill, pinned bit for bit: digests of its output on a small fixed procedural
chunk, computed before the fill was split into modules. A refactor that changes one output byte
fails here; a deliberate change of behaviour updates the digests and says why in its commit."""

import hashlib

import cv2
import numpy as np
import pytest

from g2w.remove.propagate import NO_CHECK, RimCheck, fill_chunk


def _chunk():
    """A textured world panning 3 px right and 1 px down a frame, with a large widget (partly
    never seen: Telea at reduced resolution), a transient widget far away (its own crop), a
    widget in a plain sky band (the plain-surface rule) and one frame without UI."""
    rng = np.random.default_rng(36)
    world = cv2.GaussianBlur(rng.integers(0, 255, (200, 420, 3)).astype(np.uint8), (0, 0), 2.5)
    world = cv2.normalize(world, None, 0, 255, cv2.NORM_MINMAX)
    world[:30] = (120, 150, 200)
    frames, holes = [], []
    for t in range(16):
        f = np.ascontiguousarray(world[t : t + 150, 3 * t : 3 * t + 240]).copy()
        h = np.zeros((150, 240), np.uint8)
        h[60:140, 20:110] = 255
        if 3 <= t < 11:
            h[20:32, 180:230] = 255
        h[2:14, 120:170] = 255
        if t == 7:
            h[:] = 0
        f[h > 0] = (230, 200, 40)
        frames.append(f)
        holes.append(h)
    return frames, holes


def _digest(frames) -> str:
    md5 = hashlib.md5()
    for frame in frames:
        md5.update(np.ascontiguousarray(frame).tobytes())
    return md5.hexdigest()


@pytest.mark.parametrize(
    "options, expected",
    [
        ({}, "9068f835d2f247a42dd7cba1fa8761cf"),
        ({"check": NO_CHECK}, "62ecef2de4183c69e68ff7ed7a06ac1c"),
        ({"margin": 8, "check": RimCheck(max_steps=4)}, "4c1274627a1c7018f6c5f89e24c6965a"),
    ],
)
def test_fill_output_is_byte_identical_to_the_pinned_digest(options, expected):
    frames, holes = _chunk()
    assert _digest(fill_chunk(frames, holes, **options)) == expected
