"""Synthetic defects painted onto real clean footage, window by window, with their labels.

Real captures are clean; the defects the model must catch are rare in them. So each clean
window is also written again with one defect of a random strength in the range where the
defect is plain to a viewer: per-frame camera jitter (a crop shifted every frame), blur, a
darkened picture or a fade to black, or a frame held still. The perturbed window keeps the
clean one's content, so the model learns the defect, not the game.

Captured games are often dark (Doom-engine corridors, Cube 2 maps), so a second, relit copy
changes each window's exposure (a gain or a gamma, to a mean luma drawn over the range of lit
footage) before it paints a defect or none: clean windows then come in every brightness, and
the model cannot learn "bright" as a sign of a defect. It also fades in or out of black over
most of a window ("fade", labelled too_dark, the ramp counted in the dark span as the samples'
sidecars count it), so a window only partly black is a dark one too.

Two more windows fill gaps that the defects leave in the cue space. A flat-shaded window
("flat", labelled accept) has its surface texture smoothed away with edges kept, as a stylised
or low-detail game looks, so clean windows reach the low sharpness that only blur reaches
otherwise. A dark still window ("dark_still", labelled too_dark) is a held frame darkened: a
window that is dark and frozen at once takes the dark label, since a dark picture is what a
viewer sees first, and the rules check darkness first too.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.curate.windows import plan_windows
from g2w.video.decode import iter_video_frames
from g2w.video.encode import VideoWriter
from g2w.video.probe import probe

DEFECTS = ("shaky", "blurry", "too_dark", "frozen", "dark_still")
ACCEPT = "accept"  # no defect: the window stays clean
RELIT = (ACCEPT, "blurry", "shaky", "frozen", "fade", "flat")  # what the relit copy paints after relighting
LABELS = {"fade": "too_dark", "dark_still": "too_dark", "flat": ACCEPT}  # where the label is not the name
RELIT_LUMA = (70.0, 180.0)  # target mean luma of a relit window (lit footage, not blown out)
ZOOM = 1.08  # the jittered crop is taken from the frame scaled up this much, so no edge shows


def jitter(frame: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """The frame zoomed by ZOOM and shifted by (dx, dy) frame widths."""
    h, w = frame.shape[:2]
    m = np.float32([[ZOOM, 0, (1 - ZOOM) * w / 2 + dx * w], [0, ZOOM, (1 - ZOOM) * h / 2 + dy * w]])
    return cv2.warpAffine(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def relight(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """The window's frames with their exposure changed so their mean luma lands in RELIT_LUMA:
    a linear gain (highlights clip, as an over-exposed capture does) or a gamma curve."""
    mean = max(1.0, float(np.mean([f.mean() for f in frames[:: max(1, len(frames) // 8)]])))
    target = rng.uniform(*RELIT_LUMA)
    if rng.random() < 0.5:
        return [cv2.convertScaleAbs(f, alpha=target / mean) for f in frames]
    gamma = np.log(target / 255) / np.log(min(mean, 254.0) / 255)
    lut = np.clip(255 * (np.arange(256) / 255) ** gamma + 0.5, 0, 255).astype(np.uint8)
    return [cv2.LUT(f, lut) for f in frames]


FLAT_KERNEL = (7, 17)  # median filter widths at 720p: texture of a few pixels goes, edges stay


def flatten(frames: list[np.ndarray], rng: np.random.Generator) -> list[np.ndarray]:
    """The window's frames flat-shaded: a median filter (one width for the window) removes
    texture finer than its kernel and keeps every edge between larger regions where it was, so
    the picture is plain, not soft."""
    k = int(rng.uniform(*FLAT_KERNEL) * frames[0].shape[0] / 720) // 2 * 2 + 1
    return [cv2.medianBlur(f, max(3, k)) for f in frames]


def apply_defect(frames: list[np.ndarray], defect: str, rng: np.random.Generator) -> list[np.ndarray]:
    """One window's RGB frames with `defect` painted on (`accept`: unchanged)."""
    n = len(frames)
    if defect == ACCEPT:
        return frames
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
    if defect == "fade":  # a fade in or out of black, ramp and dark together over most of the window
        span = int(rng.uniform(0.5, 0.9) * n)  # the ramp counts, as in the samples' dark spans
        ramp = int(rng.uniform(0.05, 0.2) * n)
        gain = np.ones(n)
        gain[n - span :] = rng.uniform(0.02, 0.1)
        gain[n - span : n - span + ramp] = np.linspace(1.0, gain[-1], ramp + 1)[1:]
        if rng.random() < 0.5:  # fading in: dark first
            gain = gain[::-1]
        return [cv2.convertScaleAbs(f, alpha=float(g)) for f, g in zip(frames, gain)]
    if defect == "frozen":
        start = int(rng.uniform(0.0, 0.3) * n)  # a still from here to the window's end
        return frames[:start] + [frames[start]] * (n - start)
    if defect == "dark_still":
        return apply_defect(apply_defect(frames, "frozen", rng), "too_dark", rng)
    if defect == "flat":
        return flatten(frames, rng)
    raise ValueError(f"unknown defect {defect!r}: {DEFECTS}")


def write_perturbed(
    path: str,
    out: str,
    seed: int,
    window_s: float = 5.0,
    count: int | None = None,
    defects: tuple[str, ...] = DEFECTS,
    relit: bool = False,
) -> list[str]:
    """Write `out`: `count` windows (default: one per defect, at least one per source window),
    window k the source's window k mod n with defect k mod len(defects), relit first when
    `relit`. Returns each output window's label, in order."""
    info = probe(path)
    windows = plan_windows(info.duration_s, window_s)
    if not windows:
        raise ValueError(f"{path}: shorter than one {window_s} s window")
    count = count or max(len(windows), len(defects))
    rng = np.random.default_rng(seed)
    labels = []
    with VideoWriter(out, info.width, info.height, info.fps, crf=18, preset="veryfast") as writer:
        for k in range(count):
            w = windows[k % len(windows)]
            frames = [f.to_ndarray(format="rgb24") for _, _, f in iter_video_frames(path, w.start_s, w.end_s)]
            defect = defects[k % len(defects)]
            for frame in apply_defect(relight(frames, rng) if relit else frames, defect, rng):
                writer.write(frame)
            labels.append(LABELS.get(defect, defect))
    return labels
