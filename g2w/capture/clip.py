"""One capture clip end to end: plan it, replay it twice, check the pair, write the case.

A clip is (game, demo, start second). Its id derives from those, so reruns find finished clips
and skip them. The output layout, under OUT:

- `clean/<clip_id>.mp4`: the clean run, a real clean clip for `g2w synthesize`;
- `cases/<clip_id>/`: `hud.mp4`, `clean.mp4`, `mask.mkv` (FFV1 0/255), `annotation.json`
  (Appendix G) and `meta.json` (game, engine version, demo, settings, pairing statistics and,
  where the engine gives it, the true camera),
  for paired games only; a rejected pair leaves no files, only its manifest row.

A game that cannot replay (`Game.paired` false) runs once, clean, and writes only the clip.

Lossless frames live in a scratch folder on the worker's local disk and are removed afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass

import numpy as np

from g2w.capture import get_game
from g2w.capture.annotate import annotate_mask
from g2w.capture.demo_truth import view_truth
from g2w.capture.game import Game, read_raw
from g2w.capture.pair import check_pair, mad_outside
from g2w.capture.process import CaptureError, virtual_display
from g2w.step import item_errors
from g2w.video import MaskWriter, VideoError, VideoWriter, iter_frames

CRF = 18
# The first frame after a skip is drawn before the engine has set up its HUD; one extra frame
# is captured and this one dropped in both runs.
WARMUP_FRAMES = 1


@dataclass(frozen=True)
class ClipSpec:
    game: str
    demo_id: str
    start_s: int
    frames: int = 150
    width: int = 1280
    height: int = 720
    fps: int = 30

    @property
    def clip_id(self) -> str:
        return f"{self.demo_id}-s{self.start_s:04d}"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ClipSpec:
        return cls(**json.loads(text))


def plan_clips(
    game: Game, count: int, seed: int, duration_s: float = 5.0, margin_s: float = 1.0, **spec
) -> list[ClipSpec]:
    """`count` distinct, non-overlapping clip windows over the game's demos, chosen by `seed`."""
    windows = []
    for demo in game.demos():
        start, length = margin_s, game.planned_s(demo, duration_s, margin_s)
        while start + duration_s + margin_s <= length:
            windows.append((demo.demo_id, int(start)))
            start += duration_s + margin_s
    rng = np.random.default_rng(seed)
    picks = rng.permutation(len(windows))[:count]
    return sorted((ClipSpec(game.name, windows[i][0], windows[i][1], **spec) for i in picks), key=lambda c: c.clip_id)


def encode_frames(frames: np.ndarray, path: str, fps: int) -> None:
    """H.264 (crf `CRF`, yuv420p) of (T, H, W, 3) RGB frames: the corpus clips."""
    with VideoWriter(path, frames.shape[2], frames.shape[1], fps, crf=CRF, preset="fast") as writer:
        for frame in frames:
            writer.write(np.asarray(frame))


def _frames(path: str):
    """The clip's frames one at a time: a minute of 720p is gigabytes as one array."""
    return (f.rgb for f in iter_frames(path))


def _write_case(
    spec: ClipSpec, game: Game, hud: np.ndarray, clean: np.ndarray, check, case_dir: str, clean_path: str, stats: dict
) -> None:
    tmp = case_dir + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    encode_frames(hud, os.path.join(tmp, "hud.mp4"), spec.fps)
    encode_frames(clean, os.path.join(tmp, "clean.mp4"), spec.fps)
    with MaskWriter(os.path.join(tmp, "mask.mkv"), spec.width, spec.height, spec.fps) as writer:
        for m in check.mask:
            writer.write(m)
    annotation = annotate_mask(check.raw, game.layout, spec.fps)
    with open(os.path.join(tmp, "annotation.json"), "w") as f:
        json.dump(annotation, f)
    stats["mad_outside_mask_mp4"] = round(
        mad_outside(_frames(os.path.join(tmp, "hud.mp4")), _frames(os.path.join(tmp, "clean.mp4")), check.mask), 4
    )
    stats["instances"] = len(annotation["instances"])
    meta = {
        "clip_id": spec.clip_id,
        "game": game.name,
        "engine_version": game.version(),
        "demo": spec.demo_id,
        "start_s": spec.start_s,
        "frames": spec.frames,
        "width": spec.width,
        "height": spec.height,
        "fps": spec.fps,
        "hud_toggle": game.hud_toggle,
        "settings": {"hud": game.settings(True), "clean": game.settings(False)},
        "warmup_frames_dropped": WARMUP_FRAMES,
        "crf": CRF,
        "pairing": stats,
        "camera_truth": view_truth(spec.clip_id, spec.frames, spec.fps),
    }
    with open(os.path.join(tmp, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    os.makedirs(os.path.dirname(clean_path), exist_ok=True)
    shutil.copyfile(os.path.join(tmp, "clean.mp4"), clean_path + ".partial")
    shutil.rmtree(case_dir, ignore_errors=True)
    os.replace(tmp, case_dir)
    os.replace(clean_path + ".partial", clean_path)


def capture_clip(spec: ClipSpec, out_dir: str, timeout_s: float = 300.0) -> dict:
    """Capture one clip; returns its manifest row and never raises for a failing game or demo."""
    case_dir = os.path.join(out_dir, "cases", spec.clip_id)
    clean_path = os.path.join(out_dir, "clean", f"{spec.clip_id}.mp4")
    row = {
        "clip_id": spec.clip_id,
        "game": spec.game,
        "demo": spec.demo_id,
        "start_s": spec.start_s,
        "status": "ok",
        "reason": "",
        "message": "",
        "frames": 0,
        "seconds": 0.0,
        "capture_fps": 0.0,
        "hud_coverage": 0.0,
        "mad_lossless": 0.0,
        "mad_mp4": 0.0,
        "case_dir": case_dir,
        "clean_path": clean_path,
        "skipped": False,
        "paired": True,
    }
    meta_path = os.path.join(case_dir, "meta.json")
    try:
        game = get_game(spec.game)
    except ValueError as exc:
        return {**row, "status": "error", "reason": "unknown_game", "message": str(exc)}
    if not game.paired:
        return _capture_clean(spec, game, {**row, "case_dir": "", "paired": False}, timeout_s)
    if os.path.exists(meta_path) and os.path.exists(clean_path):
        with open(meta_path) as f:
            pairing = json.load(f)["pairing"]
        return {
            **row,
            "skipped": True,
            "frames": spec.frames,
            "hud_coverage": pairing["hud_coverage"],
            "mad_lossless": pairing["mad_outside_mask_lossless"],
            "mad_mp4": pairing["mad_outside_mask_mp4"],
        }
    with _attempt(spec, row) as scratch:
        demo = _demo(game, spec)
        runs, capture_s = {}, 0.0
        with virtual_display(spec.width, spec.height) as display:
            for hud in (True, False):
                t = time.perf_counter()
                raw = game.capture_run(
                    demo,
                    spec.start_s,
                    spec.frames + WARMUP_FRAMES,
                    hud,
                    spec.width,
                    spec.height,
                    spec.fps,
                    os.path.join(scratch, "hud" if hud else "clean"),
                    timeout_s,
                    display,
                )
                capture_s += time.perf_counter() - t
                runs[hud] = read_raw(raw, spec.width, spec.height)[WARMUP_FRAMES:]
        row["capture_fps"] = round(2 * spec.frames / capture_s, 2)
        check = check_pair(runs[True], runs[False], game.layout)
        stats = dict(check.stats, capture_fps=row["capture_fps"])
        row.update(
            frames=int(runs[False].shape[0]),
            hud_coverage=stats.get("hud_coverage", 0.0),
            mad_lossless=stats.get("mad_outside_mask_lossless", 0.0),
        )
        if check.status != "ok":
            row.update(status="rejected", reason=check.reason, message=json.dumps(stats))
        else:
            _write_case(spec, game, runs[True], runs[False], check, case_dir, clean_path, stats)
            row["mad_mp4"] = stats["mad_outside_mask_mp4"]
    return row


@contextmanager
def _attempt(spec: ClipSpec, row: dict):
    """A scratch folder for one clip's capture; a failure becomes the row's error, never an exception."""
    with item_errors(row, "capture_failed", {CaptureError: ""}, (OSError, ValueError, VideoError), last_chars=1000):
        scratch = tempfile.mkdtemp(prefix=f"g2w-capture-{spec.clip_id}-")
        try:
            yield scratch
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _demo(game: Game, spec: ClipSpec):
    missing = game.available()
    if missing:
        raise CaptureError("game_unavailable", missing)
    demo = next((d for d in game.demos() if d.demo_id == spec.demo_id), None)
    if demo is None:
        raise CaptureError("unknown_demo", f"{spec.game} has no demo {spec.demo_id!r}")
    return demo


def _capture_clean(spec: ClipSpec, game: Game, row: dict, timeout_s: float) -> dict:
    """One clean run of an unpaired game: only `clean/<clip_id>.mp4`, never a case."""
    clean_path = row["clean_path"]
    if os.path.exists(clean_path):
        return {**row, "skipped": True, "frames": spec.frames}
    start = time.perf_counter()
    with _attempt(spec, row) as scratch:
        demo = _demo(game, spec)
        with virtual_display(spec.width, spec.height) as display:
            raw = game.capture_run(
                demo,
                spec.start_s,
                spec.frames,
                False,
                spec.width,
                spec.height,
                spec.fps,
                os.path.join(scratch, "clean"),
                timeout_s,
                display,
            )
        frames = read_raw(raw, spec.width, spec.height)
        row.update(frames=int(frames.shape[0]), capture_fps=round(spec.frames / (time.perf_counter() - start), 2))
        encode_frames(frames, os.path.join(scratch, "clean.mp4"), spec.fps)
        os.makedirs(os.path.dirname(clean_path), exist_ok=True)
        shutil.copyfile(os.path.join(scratch, "clean.mp4"), clean_path + ".partial")
        os.replace(clean_path + ".partial", clean_path)
    return row
