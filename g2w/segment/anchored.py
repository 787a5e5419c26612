"""Hard negatives for the segmenter: screen-anchored *world* objects composited into training clips.

A first-person weapon or hand, the player's car under a chase camera, a third-person avatar: each
stays near one place on screen while the world moves, so the temporal statistics (low spread,
frame at the window's median) make it look like UI. It differs from UI in what the network can
see: it bobs a few pixels with the player's motion and rests when the player stops, its shading
follows the light of the scene around it, it flares and kicks when firing, and its texture is the
world's own. `anchored_input` builds the network input of one training frame with such an object
pasted into the world of the whole statistics window (target 0: the UI targets are unchanged, and
the object is pasted under every pixel that is UI anywhere in the window, as games draw their HUD
over the weapon). The texture is world cut from another training sample by a smooth random shape;
two thirds of the objects rise out of the bottom edge, the rest sit anywhere. Off unless
`g2w hud-segmenter train --anchored-negatives P` asks for it.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.models.hud_segmenter import HudSegmenterConfig
from g2w.segment.inputs import assemble, stack_indices, window_stats

_LUMA = np.array([0.299, 0.587, 0.114], np.float32)
MOTION_SCALE = 6.0  # mean |luma change| between frames (0..255) at which the bob runs at full speed


def _shape(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """(h, w) float alpha in 0..1: a smooth blob (an ellipse roughened by low-frequency noise), hard
    edged with a one-pixel soft rim, as sprites and rendered objects are."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ellipse = 1 - (((xx + 0.5) / w - 0.5) * 2) ** 2 - (((yy + 0.5) / h - 0.5) * 2) ** 2
    noise = cv2.resize(rng.uniform(-1, 1, (4, 4)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    alpha = ((ellipse + 0.45 * noise) > 0.15).astype(np.float32)
    return cv2.GaussianBlur(alpha, (3, 3), 0.7)


def _texture(donors: list[dict], rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """(h, w, 3) float32 world texture from a random frame of a random donor sample, and (h, w) 0/1
    where that texture is world (the donor's UI pixels are cut out of the shape)."""
    donor = donors[int(rng.integers(len(donors)))]
    t = int(rng.integers(len(donor["frames"])))
    frame, ui = donor["frames"][t], donor["ui"][t]
    dh, dw = frame.shape[:2]
    ch = int(min(dh, max(4, round(h * rng.uniform(0.5, 1.5)))))
    cw = int(min(dw, max(4, round(w * rng.uniform(0.5, 1.5)))))
    y0, x0 = int(rng.integers(dh - ch + 1)), int(rng.integers(dw - cw + 1))
    texture = cv2.resize(frame[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
    world = cv2.resize(ui[y0 : y0 + ch, x0 : x0 + cw], (w, h), interpolation=cv2.INTER_NEAREST) == 0
    texture = texture.astype(np.float32)
    if rng.random() < 0.5:
        texture, world = texture[:, ::-1], world[:, ::-1]
    # sprites are drawn with more contrast than the walls they were cut from
    mean = texture.mean()
    return (texture - mean) * rng.uniform(1.0, 1.8) + mean, world.astype(np.float32)


def _motion(frames: np.ndarray) -> np.ndarray:
    """(N,) how much the view moves at each frame: mean absolute luma change from the previous frame,
    scaled so MOTION_SCALE is 1 (the first frame repeats the second)."""
    luma = frames.astype(np.float32) @ _LUMA
    change = np.abs(np.diff(luma, axis=0)).mean(axis=(1, 2)) if len(frames) > 1 else np.zeros(0, np.float32)
    change = np.concatenate([change[:1] if len(change) else [0.0], change])
    return np.clip(change / MOTION_SCALE, 0.0, 1.5)


def _path(motion: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-frame (dx, dy) offsets in pixels and a gain factor: a Doom-style bob (x = cos, y = |sin| of a
    phase that advances with the view's motion, amplitude easing with it), held still in a third of
    the cases, and now and then a firing kick (a few frames brighter and pushed up)."""
    n = len(motion)
    speed = np.zeros(n, np.float32)
    for k in range(n):  # ease in and out: the bob follows the player's motion with a lag
        speed[k] = motion[k] if k == 0 else 0.7 * speed[k - 1] + 0.3 * motion[k]
    amplitude = 0.0 if rng.random() < 1 / 3 else rng.uniform(1.0, 4.0)
    phase = rng.uniform(0, 2 * np.pi) + np.cumsum(rng.uniform(0.15, 0.45) * speed)
    dx = amplitude * speed * np.cos(phase)
    dy = amplitude * speed * np.abs(np.sin(phase))
    gain = np.ones(n, np.float32)
    if rng.random() < 0.5:
        for _ in range(int(rng.integers(1, 3))):
            start, length = int(rng.integers(n)), int(rng.integers(2, 6))
            gain[start : start + length] *= rng.uniform(1.2, 1.6)
            dy[start : start + length] -= rng.uniform(1.0, 4.0)
    return np.round(dx).astype(int), np.round(dy).astype(int), gain


def _local_light(frames: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """(N,) mean luma of the scene around `box` (y0, y1, x0, x1, grown by half its size), per frame."""
    y0, y1, x0, x1 = box
    h, w = frames.shape[1:3]
    gy, gx = (y1 - y0) // 2, (x1 - x0) // 2
    region = frames[:, max(0, y0 - gy) : min(h, y1 + gy), max(0, x0 - gx) : min(w, x1 + gx)]
    return region.astype(np.float32).mean(axis=(1, 2, 3)) + 1.0


def composite(frames: np.ndarray, ui: np.ndarray, donors: list[dict], rng: np.random.Generator) -> np.ndarray:
    """Frames (N, H, W, 3) uint8 with one screen-anchored world object pasted into each of them (a
    copy): moving along `_path`, lit by the scene around it, under every pixel that is UI (`ui`
    (N, H, W) 0/1) in any of the frames."""
    n, h, w = frames.shape[:3]
    ow = int(max(6, round(w * rng.uniform(0.12, 0.4))))
    oh = int(min(h, max(6, round(ow * rng.uniform(0.6, 1.3)))))
    alpha = _shape(rng, oh, ow)
    texture, world = _texture(donors, rng, oh, ow)
    alpha *= world
    x0 = int(rng.integers(-ow // 4, w - 3 * ow // 4 + 1))
    if rng.random() < 2 / 3:  # rises out of the bottom edge, partly off screen
        y0 = h - int(round(oh * rng.uniform(0.5, 1.0)))
    else:
        y0 = int(rng.integers(0, h - oh + 1))
    dx, dy, kick = _path(_motion(frames), rng)
    light = _local_light(frames, (max(0, y0), min(h, y0 + oh), max(0, x0), min(w, x0 + ow)))
    follow = rng.uniform(0.5, 1.0)  # how closely its shading follows the scene's light
    gain = (light / light.mean()) ** follow * kick * rng.uniform(0.7, 1.2)
    free = cv2.dilate(ui.max(axis=0).astype(np.uint8), np.ones((3, 3), np.uint8)) == 0
    out = frames.copy()
    for k in range(n):
        ty, tx = y0 + dy[k], x0 + dx[k]
        fy0, fy1, fx0, fx1 = max(0, ty), min(h, ty + oh), max(0, tx), min(w, tx + ow)
        if fy1 <= fy0 or fx1 <= fx0:
            continue
        a = alpha[fy0 - ty : fy1 - ty, fx0 - tx : fx1 - tx] * free[fy0:fy1, fx0:fx1]
        sprite = np.clip(texture[fy0 - ty : fy1 - ty, fx0 - tx : fx1 - tx] * gain[k], 0, 255)
        under = out[k, fy0:fy1, fx0:fx1].astype(np.float32)
        out[k, fy0:fy1, fx0:fx1] = np.round(under + a[..., None] * (sprite - under)).astype(np.uint8)
    return out


def anchored_input(
    sample: dict, t: int, config: HudSegmenterConfig, donors: list[dict], rng: np.random.Generator
) -> np.ndarray:
    """The network input for frame t of a cached sample (as `g2w.segment.data.frame_input` builds it)
    with a screen-anchored world object composited into every frame the input reads: the stack and
    the whole statistics window, so its median and spread see the object as they would in a game."""
    frames, n = sample["frames"], len(sample["frames"])
    start = t - t % config.span
    stack = stack_indices(t, n, config)
    lo, hi = min(start, *stack), max(min(n, start + config.span), *(i + 1 for i in stack))
    clip = composite(frames[lo:hi], sample["ui"][lo:hi], donors, rng)
    median, spread = window_stats(clip[start - lo : min(n, start + config.span) - lo])
    return assemble([clip[i - lo] for i in stack], median, spread)
