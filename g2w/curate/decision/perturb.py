"""Synthetic defects painted onto real clean footage, window by window, with their labels.

Real captures are clean; the defects the model must catch are rare in them. So each clean
window is also written again with one defect of a random strength in the range where the
defect is plain to a viewer: per-frame camera jitter (a crop shifted every frame), blur, a
darkened picture or a fade to black, or a frame held still. The perturbed window keeps the
clean one's content, so the model learns the defect, not the game.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.curate.windows import plan_windows
from g2w.video.decode import iter_video_frames
from g2w.video.encode import VideoWriter
from g2w.video.probe import probe

DEFECTS = ("shaky", "blurry", "too_dark", "frozen")
ZOOM = 1.08  # the jittered crop is taken from the frame scaled up this much, so no edge shows


def jitter(frame: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The frame zoomed by ZOOM and shifted by (dx, dy) frame widths."""
    h, w = frame.shape[:2]
    m = np.float32([[ZOOM, 0, (1 - ZOOM) * w / 2 + dx * w], [0, ZOOM, (1 - ZOOM) * h / 2 + dy * w]])
    return cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def apply_defect(frames: list[np.ndarray], defect: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One window's RGB frames with `defect` painted on."""
    n = len(frames)
    if defect == "shaky":
        amplitude = rng.uniform(0.008, 0.03)  # frame widths per frame
        offsets = rng.normal(0.0, amplitude, (n, 2))
        return [jitter(f, dx, dy) for f, (dx, dy) in zip(frames, offsets)]
    if defect == "blurry":
        sigma = rng.uniform(2.5, 6.0) * frames[0].shape[0] / 720
        return [cv2.GaussianBlur(f, (0, 0), sigma) for f in frames]
    if defect == "too_dark":
        gain = np.full(n, rng.uniform(0.04, 0.15))
        if rng.random() < 0.5:  # a fade to black over the first quarter of the window
            ramp = max(1, n // 4)
            gain[:ramp] = np.linspace(1.0, gain[-1], ramp)
        return [cv2.convertScaleAbs(f, alpha=float(g)) for f, g in zip(frames, gain)]
    if defect == "frozen":
        start = int(rng.uniform(0.0, 0.3) * n)  # a still from here to the window's end
        return frames[:start] + [frames[start]] * (n - start)
    raise ValueError(f"unknown defect {defect!r}: {DEFECTS}")


def write_perturbed(path: str, out: str, seed: int, window_s: float = 5.0, count: int | None = None) -> list[str]:
    """Write `out`: `count` windows (default: one per defect, at least one per source window),
    window k the source's window k mod n with defect k mod len(DEFECTS). Returns each output
    window's label, in order."""
    info = probe(path)
    windows = plan_windows(info.duration_s, window_s)
    if not windows:
        raise ValueError(f"{path}: shorter than one {window_s} s window")
    count = count or max(len(windows), len(DEFECTS))
    rng = np.random.default_rng(seed)
    labels = []
    with VideoWriter(out, info.width, info.height, info.fps, crf=18, preset="veryfast") as writer:
        for k in range(count):
            w = windows[k % len(windows)]
            frames = [f.to_ndarray(format="rgb24") for _, _, f in iter_video_frames(path, w.start_s, w.end_s)]
            defect = DEFECTS[k % len(DEFECTS)]
            for frame in apply_defect(frames, defect, rng):
                writer.write(frame)
            labels.append(defect)
    return labels
