"""Training pairs and removal inputs as the model sees them: frames sampled by timestamp at the
preset's rate (frame k at k / fps seconds; past the end the last frame repeats), resized to the
preset's resolution. A synthesis sample folder gives a pair: `hud.mp4` source, `clean.mp4`
target, and the clean video's first frame as the reference."""

from __future__ import annotations

import os

import cv2
import numpy as np

from g2w.models.gamecleaner.presets import GameCleanerConfig
from g2w.video import FrameReader


class PairError(ValueError):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def resize_frames(frames: np.ndarray, width: int, height: int) -> np.ndarray:
    if frames.shape[1:3] == (height, width):
        return frames
    interp = cv2.INTER_AREA if frames.shape[2] >= width else cv2.INTER_CUBIC
    return np.stack([cv2.resize(f, (width, height), interpolation=interp) for f in frames])


def clip_frames(path: str, config: GameCleanerConfig, start_s: float = 0.0) -> np.ndarray:
    """uint8 [frames, height, width, 3] of the video at `path` from `start_s` on, resampled and resized."""
    reader = FrameReader(path)
    times = start_s + np.arange(config.frames) / config.fps
    return resize_frames(reader.read_at(times), config.width, config.height)


def load_pair(sample_dir: str, config: GameCleanerConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source, target, reference [1, H, W, 3]) of one synthesis sample; PairError if they disagree."""
    hud, clean = (FrameReader(os.path.join(sample_dir, n)) for n in ("hud.mp4", "clean.mp4"))
    if len(hud) != len(clean):
        raise PairError("frame_count_mismatch", f"{sample_dir}: hud.mp4 has {len(hud)} frames, clean.mp4 {len(clean)}")
    if hud.read([0]).shape != clean.read([0]).shape:
        raise PairError("size_mismatch", f"{sample_dir}: hud.mp4 and clean.mp4 differ in size")
    source = clip_frames(hud.path, config)
    target = clip_frames(clean.path, config)
    return source, target, target[:1]
