"""A first-person walk through textured rooms whose camera is known exactly, for long-horizon
tests: trajectory estimation against ground truth, and segmentation across hard cuts and
dissolves.

Each shot is one box room (textured floor, walls and ceiling, each face its own texture and
shade) seen by a pinhole camera of a stated horizontal field of view that walks a smooth path
inside it while turning (yaw), looking up and down (pitch) and leaning slightly (roll). Frames
are ray-cast: every pixel's ray, rotated into the world, hits one face of the box, and the
face's texture is sampled there (one cv2.remap per frame), so the rotation and the parallax of
the translation are both exact. Shots are joined by a hard cut or by a dissolve. Optional
events make validation ground truth: a `jump` is a teleport or a respawn (between two frames
the camera turns by a large angle and moves to the opposite point of the room: a discontinuity,
where a fast turn of a player is continuous), `jitter` adds high-frequency rotation noise to a span (a
shaking hand or a bad stabilizer). A baked HUD may be drawn over everything.

The sidecar (`<name>.json`) holds the spec, every transition, every event, the intrinsics and
the per-frame camera: time, the camera-to-world rotation as a quaternion (x, y, z, w) and the
position (metres), in OpenCV's camera convention (x right, y down, z forward); the world frame
of each shot is its own room's.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

from g2w.rotations import quaternion, rotation_ypr
from g2w.sample_data.hud import BakedHud
from g2w.sample_data.textures import bricks, checker_tiles, colorize, random_palette, tileable_noise
from g2w.video.encode import VideoWriter

_TEX = 256  # texels per face texture side
_TEXELS_PER_M = 128.0
_ROOM = (4.0, 1.4, 1.6, 6.0)  # half width (x), ceiling above the eye, floor below the eye, half depth (z)
JITTER_DEG_S = 240.0  # rotation noise of a jitter span, deg/s per axis (per frame: / fps): rougher than play
JUMP_DEG = 120.0  # yaw turned between two frames by a jump, which also moves the camera across the room


@dataclass(frozen=True)
class WalkSpec:
    seed: int = 0
    width: int = 640
    height: int = 360
    fps: int = 30
    shot_s: tuple[float, ...] = (10.0,)  # one room per entry
    transitions: tuple[str, ...] = ()  # between shots: "cut" or "dissolve" (len(shot_s) - 1 of them)
    dissolve_s: float = 1.5
    hfov_deg: float = 90.0
    hud: bool = False
    jumps_s: tuple[float, ...] = ()  # times of jumps
    jitter_spans_s: tuple[tuple[float, float], ...] = ()  # [start, end) spans of jitter
    turn_deg_s: float = 25.0  # typical yaw rate of the walk
    uniform: bool = False  # every frame flat grey: nothing to track (a bad-input case)

    def __post_init__(self):
        if len(self.transitions) != len(self.shot_s) - 1:
            raise ValueError("need one transition between each pair of shots")
        if any(t not in ("cut", "dissolve") for t in self.transitions):
            raise ValueError("transitions are 'cut' or 'dissolve'")

    @property
    def frame_count(self) -> int:
        return int(round(sum(self.shot_s) * self.fps))

    @property
    def name(self) -> str:
        digest = hashlib.sha1(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:8]
        return f"walk_{self.seed}_{digest}"

    @property
    def focal_px(self) -> float:
        return self.width / 2 / math.tan(math.radians(self.hfov_deg) / 2)

    def rng(self, stream: str) -> np.random.Generator:
        key = int.from_bytes(hashlib.sha256(stream.encode()).digest()[:8], "little")
        return np.random.default_rng([self.seed, key])


@dataclass
class _Room:
    """One shot's room: its face textures (one atlas) and its camera path."""

    atlas: np.ndarray  # (6 * _TEX, _TEX, 3): faces -x, +x, ceiling, floor, -z, +z
    phases: np.ndarray
    turn: float  # yaw rate scale (rad/s)
    events: list = field(default_factory=list)

    def pose(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        """(R camera-to-world, position) at time t of the shot (before events)."""
        p = self.phases
        yaw = self.turn * (t + 1.2 * math.sin(0.31 * t + p[0])) + p[1]
        pitch = math.radians(8) * math.sin(0.47 * t + p[2])
        roll = math.radians(2) * math.sin(0.29 * t + p[3])
        x = 0.55 * _ROOM[0] * math.sin(0.13 * t + p[4])
        z = 0.55 * _ROOM[3] * math.sin(0.09 * t + p[5])
        y = 0.04 * math.sin(2 * math.pi * 1.6 * t)  # head bob
        return rotation_ypr(yaw, pitch, roll), np.array([x, y, z])


def _room(rng: np.random.Generator, spec: WalkSpec) -> _Room:
    pal = random_palette(rng)
    wall_a = bricks(rng, _TEX, _TEX, 8, 4, pal["primary"], pal["dark"])
    wall_b = colorize(tileable_noise(rng, _TEX, _TEX, 6), pal["dark"], pal["light"])
    floor = checker_tiles(rng, _TEX, 4, pal["light"], pal["secondary"])
    ceiling = colorize(tileable_noise(rng, _TEX, _TEX, 4), pal["dark"], pal["secondary"])
    wall_c = bricks(rng, _TEX, _TEX, 6, 3, pal["secondary"], pal["dark"])
    shades = (0.95, 0.8, 0.6, 1.0, 0.85, 0.7)  # each face lit differently, so corners show
    faces = [
        np.clip(f.astype(np.float32) * s, 0, 255).astype(np.uint8)
        for f, s in zip((wall_a, wall_b, ceiling, floor, wall_c, wall_a[::-1]), shades)
    ]
    direction = 1 if rng.random() < 0.5 else -1
    return _Room(
        np.concatenate(faces),
        rng.uniform(0, 2 * np.pi, 6),
        direction * math.radians(spec.turn_deg_s) * rng.uniform(0.7, 1.3),
    )


def _rays(spec: WalkSpec) -> np.ndarray:
    """(h, w, 3) camera-frame ray directions of every pixel centre."""
    f = spec.focal_px
    u = (np.arange(spec.width) + 0.5 - spec.width / 2) / f
    v = (np.arange(spec.height) + 0.5 - spec.height / 2) / f
    uu, vv = np.meshgrid(u, v)
    return np.stack([uu, vv, np.ones_like(uu)], axis=-1).astype(np.float32)


def render_room(room: _Room, rays: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The RGB frame of camera (R, position) in the room: every ray hits the nearest face."""
    d = rays @ r.T.astype(np.float32)  # world directions
    hx, hu, hd, hz = _ROOM
    lo = np.array([-hx, -hu, -hz], np.float32)
    hi = np.array([hx, hd, hz], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.where(d > 0, hi, lo)
        t = (bound - c.astype(np.float32)) / d
    t = np.where(np.isfinite(t) & (t > 0), t, np.inf)
    axis = t.argmin(axis=-1)
    tmin = np.take_along_axis(t, axis[..., None], -1)[..., 0]
    p = c.astype(np.float32) + d * tmin[..., None]
    positive = np.take_along_axis(d, axis[..., None], -1)[..., 0] > 0
    face = axis * 2 + positive  # 0 -x, 1 +x, 2 ceiling (-y), 3 floor (+y), 4 -z, 5 +z
    # texture coordinates: the two other axes of the face
    a = np.where(axis == 0, p[..., 2], p[..., 0])
    b = np.where(axis == 1, p[..., 2], p[..., 1])
    map_x = np.mod(a * _TEXELS_PER_M, _TEX - 1).astype(np.float32)
    map_y = (face * _TEX + np.mod(b * _TEXELS_PER_M, _TEX - 1)).astype(np.float32)
    frame = cv2.remap(room.atlas, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    fog = np.clip(np.exp(-tmin / 16.0), 0.35, 1.0)[..., None]
    return (frame * fog).astype(np.uint8)


class Walkthrough:
    """Frames and ground truth of a WalkSpec, as a pure function of it."""

    def __init__(self, spec: WalkSpec):
        self.spec = spec
        self.rooms = [_room(spec.rng(f"room{k}"), spec) for k in range(len(spec.shot_s))]
        self.rays = _rays(spec)
        self.starts = np.r_[0.0, np.cumsum(spec.shot_s)]
        jitter_rng = spec.rng("jitter")
        self.jitter = np.radians(JITTER_DEG_S / spec.fps) * jitter_rng.standard_normal((spec.frame_count, 3))
        self.hud = BakedHud(spec.rng("hud"), spec.width, spec.height) if spec.hud else None

    def _shot_at(self, t: float) -> int:
        return int(min(np.searchsorted(self.starts, t, side="right") - 1, len(self.spec.shot_s) - 1))

    def camera(self, i: int) -> tuple[int, np.ndarray, np.ndarray]:
        """(shot, R camera-to-world, position) of frame i, events included."""
        spec = self.spec
        t = i / spec.fps
        shot = self._shot_at(t)
        local = t - self.starts[shot]
        r, c = self.rooms[shot].pose(local)
        jumps = sum(1 for j in spec.jumps_s if self.starts[shot] <= j <= t)
        if jumps:
            r = rotation_ypr(math.radians(JUMP_DEG * jumps), 0.0, 0.0) @ r
            if jumps % 2:
                c = c * np.array([-1.0, 1.0, -1.0])  # to the point opposite in the room
        if any(a <= t < b for a, b in spec.jitter_spans_s):
            r = r @ rotation_ypr(*self.jitter[i])
        return shot, r, c

    def frame(self, i: int, with_hud: bool = True) -> np.ndarray:
        spec = self.spec
        t = i / spec.fps
        shot, r, c = self.camera(i)
        if spec.uniform:
            picture = np.full((spec.height, spec.width, 3), 128, np.uint8)
            if self.hud is not None:
                self.hud.draw(picture, t)
            return picture
        picture = render_room(self.rooms[shot], self.rays, r, c)
        if shot > 0 and spec.transitions[shot - 1] == "dissolve" and t - self.starts[shot] < spec.dissolve_s:
            # the previous shot carries on under the new one while it fades out
            previous = self.rooms[shot - 1]
            pr, pc = previous.pose(t - self.starts[shot - 1])
            alpha = (t - self.starts[shot]) / spec.dissolve_s
            picture = cv2.addWeighted(render_room(previous, self.rays, pr, pc), 1 - alpha, picture, alpha, 0)
        if with_hud and self.hud is not None:
            self.hud.draw(picture, t)
        return picture

    def sidecar(self, video_name: str) -> dict:
        spec = self.spec
        rows = []
        for i in range(spec.frame_count):
            shot, r, c = self.camera(i)
            rows.append([round(i / spec.fps, 6), shot, *np.round(quaternion(r), 8).tolist(), *np.round(c, 6).tolist()])
        transitions = [
            {
                "time_s": float(self.starts[k + 1]),
                "kind": kind,
                "duration_s": spec.dissolve_s if kind == "dissolve" else 0.0,
            }
            for k, kind in enumerate(spec.transitions)
        ]
        return {
            "generator": "g2w.sample_data.walkthrough",
            "video": video_name,
            "spec": asdict(spec),
            "width": spec.width,
            "height": spec.height,
            "fps": spec.fps,
            "frame_count": spec.frame_count,
            "duration_s": spec.frame_count / spec.fps,
            "intrinsics": {
                "hfov_deg": spec.hfov_deg,
                "fx": spec.focal_px,
                "fy": spec.focal_px,
                "cx": spec.width / 2,
                "cy": spec.height / 2,
            },
            "transitions": transitions,
            "jumps_s": list(spec.jumps_s),
            "jitter_spans_s": [list(s) for s in spec.jitter_spans_s],
            "camera": {
                "convention": "camera-to-world rotation, OpenCV axes (x right, y down, z forward); "
                "world frame: the shot's room",
                "columns": ["time_s", "shot", "qx", "qy", "qz", "qw", "x", "y", "z"],
                "rows": rows,
            },
        }


def write_walkthrough(spec: WalkSpec, out_dir: str | os.PathLike, crf: int = 20, preset: str = "ultrafast") -> str:
    """Render, encode and describe one walkthrough; skips the work when an identical one exists.
    The sidecar is written last, so its presence means the video beside it is complete."""
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    video = os.path.join(out_dir, spec.name + ".mp4")
    sidecar_path = os.path.join(out_dir, spec.name + ".json")
    if os.path.exists(video) and os.path.exists(sidecar_path):
        return video
    walk = Walkthrough(spec)
    with VideoWriter(video, spec.width, spec.height, spec.fps, crf=crf, preset=preset) as writer:
        for i in range(spec.frame_count):
            writer.write(walk.frame(i))
    tmp = sidecar_path + ".partial"
    with open(tmp, "w") as f:
        json.dump(walk.sidecar(os.path.basename(video)), f)
    os.replace(tmp, sidecar_path)
    return video


def camera_table(sidecar: dict) -> dict[str, np.ndarray]:
    """The sidecar's per-frame camera as named columns."""
    cam = sidecar["camera"]
    values = np.asarray(cam["rows"], np.float64)
    return {name: values[:, k] for k, name in enumerate(cam["columns"])}
