"""What happens when in a sample video: a sequence of blocks, and how each frame is made.

A video is planned as blocks on a 2.5 s grid. `play` shows a scene (a new scene starts with a
hard cut), `idle` nearly stops the camera while the world keeps moving, `frozen` repeats one
frame, `dark` and `blur` degrade the picture, `shaky` jitters the camera, and `duplicate`
replays the previous 5 s. Every output frame is described by a `FrameSource`, and the ground
truth is derived from those same sources: a cut is wherever a frame is not the continuation of
the one before, so a replay of frozen footage that looks identical is, correctly, no cut.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GRID_S = 2.5
DUPLICATE_S = 5.0  # a replay repeats exactly one curation window's worth of footage
IDLE_CAMERA_RATE = 0.03
DARK_GAIN = 0.08
FADE_S = 0.3
SHAKE_SIGMA = 0.015  # per-frame camera jitter, as a fraction of the frame width

KINDS = ("play", "idle", "frozen", "dark", "blur", "shaky", "duplicate")
_LENGTHS_S = {
    "play": (5.0, 7.5, 10.0),
    "idle": (5.0, 7.5),
    "frozen": (7.5,),  # 7.5 s on a 2.5 s grid always contains a whole aligned 5 s window
    "dark": (7.5,),
    "blur": (7.5,),
    "shaky": (7.5,),
    "duplicate": (DUPLICATE_S,),
}
_WEIGHTS = {"play": 0.4, "idle": 0.1, "frozen": 0.1, "dark": 0.1, "blur": 0.1, "shaky": 0.1, "duplicate": 0.1}


@dataclass(frozen=True)
class Block:
    kind: str
    start_frame: int
    end_frame: int  # exclusive
    scene: int  # index of the scene shown (for a duplicate: the scene the replay starts in)
    seed: int  # drives per-frame randomness inside the block (shake)


@dataclass(frozen=True)
class FrameSource:
    """How to make one output frame."""

    scene: int
    cam_t: float
    anim_t: float
    hud_t: float
    dark_gain: float  # 1.0 = untouched
    blur: bool
    replay: bool
    shake: tuple[float, float] = (0.0, 0.0)  # camera jitter (dx, dy), fractions of the width


def plan_blocks(
    rng: np.random.Generator, frame_count: int, fps: float, first_event: str | None, new_scene_p: float = 0.7
) -> tuple[list[Block], int]:
    """Blocks covering [0, frame_count), and the number of scenes they use.

    `first_event` forces the kind of the second block so a batch of videos covers every kind.
    """
    blocks: list[Block] = []
    scenes = 1
    t = 0.0
    duration = frame_count / fps
    while round(t * fps) < frame_count:
        kind = _next_kind(rng, blocks, t, first_event)
        length = float(rng.choice(_LENGTHS_S[kind]))
        end = min(t + length, duration)
        if duration - end < GRID_S / 2:  # never leave a sliver at the end
            end = duration
        start_f, end_f = round(t * fps), min(frame_count, round(end * fps))
        new_scene = kind == "play" and blocks and rng.random() < new_scene_p
        if new_scene:
            scenes += 1
        scene = scenes - 1 if kind != "duplicate" else _scene_at(blocks, start_f - round(DUPLICATE_S * fps))
        blocks.append(Block(kind, start_f, end_f, scene, int(rng.integers(1 << 31))))
        t = end
    return blocks, scenes


def _allowed(kind: str, blocks: list[Block], t: float) -> bool:
    if kind == "duplicate":
        return t >= DUPLICATE_S
    if kind == "frozen":  # holding a replay's last frame would hide the jump back from it
        return not blocks or blocks[-1].kind != "duplicate"
    return True


def _next_kind(rng: np.random.Generator, blocks: list[Block], t: float, first_event: str | None) -> str:
    if not blocks:
        return "play"
    if len(blocks) == 1 and first_event and _allowed(first_event, blocks, t):
        return first_event
    kinds = [k for k in KINDS if _allowed(k, blocks, t)]
    p = np.array([_WEIGHTS[k] for k in kinds])
    return str(rng.choice(kinds, p=p / p.sum()))


def _scene_at(blocks: list[Block], frame: int) -> int:
    return next(b.scene for b in blocks if b.start_frame <= frame < b.end_frame)


def frame_sources(blocks: list[Block], fps: float) -> list[FrameSource]:
    """One FrameSource per output frame, following each scene's camera and animation clocks."""
    clocks: dict[int, tuple[float, float]] = {}
    out: list[FrameSource] = []
    dt = 1.0 / fps
    for block in blocks:
        if block.kind == "duplicate":
            span = block.end_frame - block.start_frame
            source = block.start_frame - round(DUPLICATE_S * fps)
            out.extend(_replayed(s) for s in out[source : source + span])
            continue
        cam, anim = clocks.get(block.scene, (0.0, 0.0))
        jitter = np.random.default_rng(block.seed).normal(0, SHAKE_SIGMA, (block.end_frame - block.start_frame, 2))
        for f in range(block.start_frame, block.end_frame):
            t = f * dt
            if block.kind == "frozen":
                held = out[block.start_frame - 1] if block.start_frame else None
                out.append(held or FrameSource(block.scene, cam, anim, t, 1.0, False, False))
                continue
            local = t - block.start_frame * dt
            remaining = block.end_frame * dt - t
            gain = 1.0
            if block.kind == "dark":
                ramp = min(1.0, local / FADE_S, remaining / FADE_S)
                gain = 1.0 - (1.0 - DARK_GAIN) * ramp
            shake = tuple(jitter[f - block.start_frame]) if block.kind == "shaky" else (0.0, 0.0)
            out.append(FrameSource(block.scene, cam, anim, t, gain, block.kind == "blur", False, shake))
            cam += dt * (IDLE_CAMERA_RATE if block.kind == "idle" else 1.0)
            anim += dt
        clocks[block.scene] = (cam, anim)
    return out


def _replayed(source: FrameSource) -> FrameSource:
    return FrameSource(
        source.scene, source.cam_t, source.anim_t, source.hud_t, source.dark_gain, source.blur, True, source.shake
    )


def continues(before: FrameSource, after: FrameSource, fps: float) -> bool:
    """True when `after` is `before` held, or one frame later in the same scene."""
    if (before.scene, before.cam_t, before.anim_t) == (after.scene, after.cam_t, after.anim_t):
        return True
    step = 1.0 / fps + 1e-9
    return (
        before.scene == after.scene
        and 0 <= after.cam_t - before.cam_t <= step
        and 0 <= after.anim_t - before.anim_t <= step
    )


def cut_frames(sources: list[FrameSource], fps: float) -> list[int]:
    """Frames whose content does not continue from the frame before."""
    return [f for f in range(1, len(sources)) if not continues(sources[f - 1], sources[f], fps)]


def ground_truth(blocks: list[Block], sources: list[FrameSource], fps: float) -> dict:
    """Cuts and event spans (frames half-open, and seconds) for the sidecar."""
    cuts = cut_frames(sources, fps)
    cut_set = set(cuts)

    def span(b: Block) -> dict:
        return {
            "start_frame": b.start_frame,
            "end_frame": b.end_frame,
            "start_s": b.start_frame / fps,
            "end_s": b.end_frame / fps,
        }

    truth: dict = {
        "cuts": [{"frame": f, "time_s": f / fps} for f in cuts],
        "blocks": [{"kind": b.kind, "scene": b.scene, "cut": b.start_frame in cut_set, **span(b)} for b in blocks],
    }
    for kind in ("frozen", "dark", "blur", "shaky", "idle"):
        truth[f"{kind}_spans"] = [span(b) for b in blocks if b.kind == kind]
    truth["duplicate_spans"] = [
        {
            **span(b),
            "source_start_frame": b.start_frame - round(DUPLICATE_S * fps),
            "source_end_frame": b.end_frame - round(DUPLICATE_S * fps),
            "source_start_s": (b.start_frame - round(DUPLICATE_S * fps)) / fps,
            "source_end_s": (b.end_frame - round(DUPLICATE_S * fps)) / fps,
        }
        for b in blocks
        if b.kind == "duplicate"
    ]
    return truth
