"""Sample gameplay videos with exact ground truth, for demos and tests.

A video is fully determined by its `VideoSpec` (seed, index, size, rate, length, game, HUD).
Frames come from `render_frames`, a pure function of the spec, so tests can compare raw frames
with the sidecar, and re-running the generator reproduces every byte of the plan.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace

import cv2
import numpy as np

from g2w.sample_data.games import GAMES
from g2w.sample_data.hud import ALPHA_MIN, BakedHud
from g2w.sample_data.timeline import KINDS, FrameSource, frame_sources, ground_truth, plan_blocks
from g2w.video.encode import VideoWriter

SIDECAR_VERSION = 1
SIZES = ((1280, 720), (854, 480), (1920, 1080), (720, 1280), (1000, 562))
RATES = (30, 24, 60)
STYLES = tuple(GAMES)
EVENTS = tuple(k for k in KINDS if k != "play")  # forced second block, rotating over videos
REPLAY_OFFSET = 4  # grey levels added to a replayed stretch: a near-duplicate, not a copy
BLUR_FACTOR = 10
OTHER_GAME_P = 0.2  # chance that a new scene comes from another game (a montage cut)


@dataclass(frozen=True)
class VideoSpec:
    seed: int
    index: int
    width: int
    height: int
    fps: int
    duration_s: float
    style: str
    hud: bool
    first_event: str | None = None

    @property
    def frame_count(self) -> int:
        return round(self.duration_s * self.fps)

    @property
    def name(self) -> str:
        return f"sample_{self.seed}_{self.index:03d}"

    def rng(self, stream: str) -> np.random.Generator:
        """An independent generator per purpose, so changing one never shifts another."""
        key = int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little")
        return np.random.default_rng([self.seed, self.index, key])


def spec_for(seed: int, index: int, duration_s: float) -> VideoSpec:
    """The index-th video of a batch: sizes, rates, games and events rotate so any 6 consecutive
    videos cover every size and event kind, and any 4 every game."""
    width, height = SIZES[index % len(SIZES)]
    return VideoSpec(
        seed,
        index,
        width,
        height,
        RATES[index % len(RATES)],
        float(duration_s),
        STYLES[index % len(STYLES)],
        hud=index % 3 == 1,
        first_event=EVENTS[index % len(EVENTS)],
    )


class _Plan:
    """Everything decided before rendering: blocks, per-frame sources, scenes and HUD."""

    def __init__(self, spec: VideoSpec):
        self.spec = spec
        self.blocks, n_scenes = plan_blocks(spec.rng("timeline"), spec.frame_count, spec.fps, spec.first_event)
        self.sources = frame_sources(self.blocks, spec.fps)
        pick = spec.rng("scenes")
        self.scene_styles = [spec.style] + [
            str(pick.choice(STYLES)) if pick.random() < OTHER_GAME_P else spec.style for _ in range(n_scenes - 1)
        ]
        self._scenes: dict[int, object] = {}
        self.hud = BakedHud(spec.rng("hud"), spec.width, spec.height) if spec.hud else None

    def scene(self, k: int):
        if k not in self._scenes:
            game = GAMES[self.scene_styles[k]]
            self._scenes[k] = game(self.spec.rng(f"scene{k}"), self.spec.width, self.spec.height)
        return self._scenes[k]

    def frame(self, src: FrameSource, with_hud: bool = True) -> np.ndarray:
        frame = self.scene(src.scene).render(src.cam_t, src.anim_t)
        if src.shake != (0.0, 0.0):
            h, w = frame.shape[:2]
            shift = np.float32([[1, 0, src.shake[0] * w], [0, 1, src.shake[1] * w]])
            frame = cv2.warpAffine(frame, shift, (w, h), borderMode=cv2.BORDER_REFLECT)
        if src.blur:
            h, w = frame.shape[:2]
            small = cv2.resize(
                frame, (max(1, w // BLUR_FACTOR), max(1, h // BLUR_FACTOR)), interpolation=cv2.INTER_AREA
            )
            frame = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
        if src.dark_gain < 1.0:
            frame = cv2.convertScaleAbs(frame, alpha=src.dark_gain)
        if with_hud and self.hud is not None:
            self.hud.draw(frame, src.hud_t)
        if src.replay:
            frame = cv2.add(frame, np.full_like(frame, REPLAY_OFFSET))
        return frame

    def sidecar(self, video_name: str) -> dict:
        spec = self.spec
        truth = ground_truth(self.blocks, self.sources, spec.fps)
        truth["blocks"] = [{**b, "style": self.scene_styles[b["scene"]]} for b in truth["blocks"]]
        hud_times = np.unique([s.hud_t for s in self.sources])
        return {
            "generator": "g2w.sample_data",
            "version": SIDECAR_VERSION,
            "video": video_name,
            "spec": asdict(spec),
            "width": spec.width,
            "height": spec.height,
            "fps": spec.fps,
            "frame_count": spec.frame_count,
            "duration_s": spec.frame_count / spec.fps,
            "styles": sorted(set(self.scene_styles)),
            **truth,
            "hud": {
                "present": self.hud is not None,
                "alpha_threshold": ALPHA_MIN,
                "box_format": "half-open xyxy",
                "elements": self.hud.boxes(hud_times) if self.hud else [],
            },
        }


def render_frames(spec: VideoSpec, with_hud: bool = True) -> Iterator[np.ndarray]:
    """The video's RGB frames in order, before encoding (one at a time)."""
    plan = _Plan(spec)
    for src in plan.sources:
        yield plan.frame(src, with_hud)


def sidecar_for(spec: VideoSpec, video_name: str) -> dict:
    return _Plan(spec).sidecar(video_name)


def write_sample(spec: VideoSpec, out_dir: str | os.PathLike, crf: int = 20, preset: str = "ultrafast") -> str:
    """Render, encode and describe one video; skips the work when an identical one exists.

    Returns the video path. The sidecar (`<name>.json`) is written last, so its presence means
    the video beside it is complete.
    """
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    video = os.path.join(out_dir, spec.name + ".mp4")
    sidecar_path = os.path.join(out_dir, spec.name + ".json")
    if os.path.exists(video) and os.path.exists(sidecar_path):
        with open(sidecar_path) as f:
            if json.load(f).get("spec") == asdict(spec):
                return video
    plan = _Plan(spec)
    with VideoWriter(video, spec.width, spec.height, spec.fps, crf=crf, preset=preset) as writer:
        for src in plan.sources:
            writer.write(plan.frame(src))
    tmp = sidecar_path + ".partial"
    with open(tmp, "w") as f:
        json.dump(plan.sidecar(os.path.basename(video)), f, indent=1)
    os.replace(tmp, sidecar_path)
    return video


def generate_samples(
    out_dir: str | os.PathLike,
    count: int,
    seed: int = 0,
    duration_s: float = 30.0,
    progress=None,
    baked_hud: bool = True,
) -> list[str]:
    """`count` varied sample videos with sidecars in `out_dir`; returns their paths.

    `baked_hud=False` leaves the baked HUD off every video (it is otherwise on every third one,
    which are also the 24 fps ones), so a batch gives clean clips of every size, rate and game."""
    paths = []
    for index in range(count):
        spec = spec_for(seed, index, duration_s)
        if not baked_hud:
            spec = replace(spec, hud=False)
        paths.append(write_sample(spec, out_dir))
        if progress:
            progress(index + 1, count, paths[-1])
    return paths
