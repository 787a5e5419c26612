"""What a capturable game is: its demos, its HUD layout and one fixed-rate capture run.

A game module (one per engine, e.g. `g2w.capture.freedoom`) subclasses `Game`. `capture_run`
replays one demo from a start time with the HUD on or off and leaves exactly `frames` RGB
frames in a raw file (frame-major, `height x width x 3` bytes each): lossless, so two runs can
be compared bit for bit. Timing comes from the engine's fixed-timestep capture, never from
wall-clock grabs, so how fast the machine renders does not change which frames come out.
"""

from __future__ import annotations

import os
import shutil
from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Demo:
    """One replayable recording: `demo_id` is stable and file-name safe."""

    demo_id: str
    source: str  # where the recording comes from (file, or container + lump)
    duration_s: float


@dataclass(frozen=True)
class Region:
    """A part of the game's HUD layout, as fractions of the frame: x1, y1, x2, y2 in [0, 1]."""

    name: str
    label: str  # one of the 21 taxonomy labels
    kind: str  # persistent or transient
    box: tuple[float, float, float, float]

    def contains(self, x: float, y: float, width: int, height: int) -> bool:
        x1, y1, x2, y2 = self.box
        return x1 * width <= x < x2 * width and y1 * height <= y < y2 * height


class Game(ABC):
    name: str = ""
    packages: tuple[str, ...] = ()  # Debian packages scripts/capture-deps.sh installs
    hud_toggle: str = ""  # how the HUD is switched, for docs/capture.md and meta.json
    paired: bool = True  # deterministic replay with a HUD switch -> exact pairs
    layout: tuple[Region, ...] = ()  # where the HUD can be; differences elsewhere mean desync

    @abstractmethod
    def available(self) -> str | None:
        """None when the game can run here, else why not (a missing package, a missing file)."""

    @abstractmethod
    def version(self) -> str:
        """Engine and data versions, recorded in every clip's meta.json."""

    @abstractmethod
    def demos(self) -> list[Demo]:
        """Every recording this game can replay, in a stable order."""

    @abstractmethod
    def capture_run(
        self,
        demo: Demo,
        start_s: float,
        frames: int,
        hud: bool,
        width: int,
        height: int,
        fps: int,
        workdir: str,
        timeout_s: float,
        display: str,
    ) -> str:
        """Replay `demo` from `start_s` on X `display`; returns the raw RGB file of exactly `frames` frames.

        Raises `CaptureError` with a reason when the engine fails, hangs or stops short.
        """

    def planned_s(self, demo: Demo, clip_s: float, margin_s: float) -> float:
        """How much of `demo` the clip planner lays windows over: a recording, all of it."""
        return demo.duration_s

    def settings(self, hud: bool) -> dict:
        """The engine settings that differ between the HUD and the clean run (for meta.json)."""
        return {}

    def missing_tool(self, tools: tuple[str, ...] = ("Xvfb", "ffmpeg")) -> str | None:
        """Why the game cannot run when one of the command-line tools it needs is not installed."""
        for tool in tools:
            if shutil.which(tool) is None:
                return f"{tool} missing: run scripts/capture-deps.sh {self.name}"
        return None


def read_raw(path: str, width: int, height: int) -> np.ndarray:
    """A raw RGB frame file as a read-only (T, H, W, 3) memory map."""
    frame_bytes = width * height * 3
    size = os.path.getsize(path)
    if size == 0 or size % frame_bytes:
        raise ValueError(f"{path}: {size} bytes is not a whole number of {width}x{height} RGB frames")
    return np.memmap(path, dtype=np.uint8, mode="r", shape=(size // frame_bytes, height, width, 3))
