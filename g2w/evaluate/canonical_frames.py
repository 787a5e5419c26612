"""Frames of a case's videos read onto the evaluation canvas (each wanted frame decoded once)."""

from __future__ import annotations

import numpy as np

from g2w.cases.canvas import to_canvas
from g2w.video.decode import FrameReader


def read_canonical(path: str, indices: list[int], canvas: tuple[int, int]) -> dict[int, np.ndarray]:
    """Frames at `indices` (each decoded once), scaled to the canvas, keyed by index."""
    wanted = sorted(set(int(i) for i in indices))
    frames = FrameReader(path).read(wanted)
    return {i: to_canvas(f, canvas) for i, f in zip(wanted, frames)}
