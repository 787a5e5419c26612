"""The view yaw a Doom demo commands, per tic: engine ground truth for captured Doom footage.

A vanilla (v1.9) demo is a 13-byte header and then, for every game tic, four bytes per player
in the game: forward move, side move, turn, buttons. The turn byte is the high byte of the
tic's `angleturn` (a signed 16-bit share of a full turn), so one unit of it is 360/256 degrees,
and positive turns left. The header names the console player, whose view the engine shows on
playback. Summing that player's turns gives its commanded yaw at every tic.

It is the truth of every turn the player makes, not of the angle the engine shows: a teleport
or a respawn sets the angle without a command, and a dead player's view turns towards the
killer. Those moments are discontinuities in the footage and none in the commands, which is
what a jump check should find, so comparisons over spans are reported as robust statistics.

Capture replays a demo from a start tic (`-skiptic`) and renders frames at the capture rate,
interpolating the view between tics; a frame at time t of the clip shows the yaw of tic
`start_tic + t * TICRATE`, linearly interpolated (`yaw_at`).
"""

from __future__ import annotations

import numpy as np

from g2w.capture.wad import TICRATE, read_lump
from g2w.rotations import rotation_ypr

DEGREES_PER_TURN_UNIT = 360.0 / 256.0
_HEADER = 13
_END = 0x80


def commanded_yaw_deg(demo: bytes) -> np.ndarray:
    """(tics + 1,) yaw in degrees (left positive) of the console player before each tic and after
    the last, starting at 0."""
    if len(demo) < _HEADER + 1 or demo[0] != 109:
        raise ValueError("not a Doom v1.9 demo")
    console = demo[8]
    in_game = [k for k in range(4) if demo[9 + k]]
    if console not in in_game:
        raise ValueError(f"console player {console} is not in the game")
    slot = in_game.index(console)
    stride = 4 * len(in_game)
    body = np.frombuffer(demo, np.uint8, offset=_HEADER)
    end = np.flatnonzero(body[::stride] == _END)
    tics = int(end[0]) if len(end) else len(body) // stride
    turns = body[: tics * stride].reshape(tics, len(in_game), 4)[:, slot, 2].astype(np.int8)
    return np.concatenate([[0.0], np.cumsum(turns.astype(np.float64) * DEGREES_PER_TURN_UNIT)])


def yaw_at(yaw_by_tic: np.ndarray, start_tic: int, times_s: np.ndarray) -> np.ndarray:
    """Yaw (degrees) at clip times, interpolated between tics; NaN past the demo's end."""
    tic = start_tic + np.asarray(times_s, np.float64) * TICRATE
    return np.interp(tic, np.arange(len(yaw_by_tic)), yaw_by_tic, right=np.nan)


def rotations_from_yaw(yaw_deg: np.ndarray) -> np.ndarray:
    """(n, 3, 3) camera-to-world rotations (OpenCV axes, world = the first frame) of a level
    camera turning by `yaw_deg` (left positive): Doom's view neither pitches nor rolls."""
    rel = np.radians(np.asarray(yaw_deg, np.float64) - yaw_deg[0])
    return np.stack([rotation_ypr(-a, 0.0, 0.0) for a in rel])


def clip_yaw_deg(clip_id: str, times_s: np.ndarray, fps: float) -> np.ndarray | None:
    """Commanded yaw (degrees, left positive) at times of a captured Doom clip (its frame k at
    k / fps), read from the demo it was replayed from; None for a game without demo truth."""
    from g2w.capture import game_of_clip, get_game
    from g2w.capture.clip import WARMUP_FRAMES
    from g2w.capture.freedoom import Freedoom

    game = get_game(game_of_clip(clip_id))
    if not isinstance(game, Freedoom):
        return None
    demo_id, start = clip_id.rsplit("-s", 1)
    demo = next((d for d in game.demos() if d.demo_id == demo_id), None)
    if demo is None:
        raise ValueError(f"{clip_id}: no demo {demo_id!r} in the installed {game.name} data")
    iwad, lump = demo.source.rsplit(":", 1)
    times = np.asarray(times_s, np.float64) + WARMUP_FRAMES / fps  # capture drops the first frames
    return yaw_at(commanded_yaw_deg(read_lump(iwad, lump)), round(int(start) * TICRATE), times)


def view_truth(clip_id: str, frames: int, fps: float) -> dict | None:
    """The case sidecar's ground-truth camera of a captured clip: per-frame commanded yaw, or
    None for a game whose engine gives none."""
    yaw = clip_yaw_deg(clip_id, np.arange(frames) / fps, fps)
    if yaw is None:
        return None
    return {
        "source": "demo commands",
        "axes": "yaw only, degrees, left positive; the view neither pitches nor rolls",
        "view_yaw_deg": [None if np.isnan(v) else round(float(v), 3) for v in yaw],
    }
