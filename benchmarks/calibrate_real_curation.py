"""Choose the cut and shake thresholds on real game footage and report them out of sample.

Input: the real corpus `make capture` writes (default `real_corpus/`): clean clips (no HUD) as
`clean/<clip_id>.mp4` and paired cases as `cases/<clip_id>/` with `hud.mp4` (the game's own HUD)
and `meta.json` (which game); a corpus may also hold one such folder per game. From the clean
clips the script builds footage whose truth is known by construction:
- continuous: each clean clip as captured, one demo segment, so every window is clean;
- concatenated: parts of three clips of the same game back to back, so the cuts are
  known, some inside a window and some exactly on a window boundary (then neither window
  contains the cut and both must stay clean);
- jittered: a clean clip moved by a random per-frame translation (1.5 % of the width, like a
  handheld jolt), so its windows are known shake;
- flashed: a clean clip with known flashes painted over it (`write_flash`: a muzzle flash or
  explosion brightening a blob, a coloured pickup tint, a red damage wash with a vignette), each
  2-8 frames at a seeded random moment while the game's own motion goes on underneath, so its
  windows are clean: a cut detector, and the local cue's veto, must leave them alone.
"Continuous" is not "without a jump of the view": the game itself moves the camera at a death,
a respawn or a teleport. Those in-game jumps are labelled by hand in
`benchmarks/data/real_in_game_jumps.json` (clip id -> frame ranges, kind, note; `--labels`),
and carried into the concatenations built from those clips. A window holding one is neither a
clean window nor a cut window: how many of them are flagged is reported apart (flagging them
is right for a world-model corpus), a detection at one is neither a true nor a false cut, and the
rules that choose thresholds do not learn from them.
Every built video is decoded once into the analysis thumbnails of every frame (cached in the
workdir); the per-frame cues are the curation job's own `FrameSignals` replayed on them, so a
change of the cut cues needs no new decode. Thresholds are chosen on one group and reported on
each of the others, every group in turn (`--choose GROUP` limits the directions): the groups
are the games when the corpus has two or more (the game comes from the capture manifest, so
unpaired games count too), else the IWADs or demos of its one game (said plainly
in the output). The structural path (frames that share nothing, standing out on each side) is set
by a midpoint rule on the choose split: its difference threshold halfway between the largest
difference of a non-cut step that stands out and the level of unrelated frames (thumbnails of
different clips), its ratio halfway between the largest such ratio of a decorrelated non-cut
step and the smallest ratio at a known cut. The other thresholds come from a grid search, then
the local cue's promotion and veto (the blocks' detail, where the camera moved) from a second grid on top of them, then
the return veto and the run veto (a step inside a run of decorrelating steps), each on top, ties to the mildest point; the local cue is replayed from the cached 160x90 luma wherever the score
without it reaches 0.5, and its distributions per kind of step are printed. Printed side by
side on the same videos: PySceneDetect's adaptive and content detectors at their defaults, and
the UI screen on clean clips and on the HUD versions of the same moments.

Usage: python benchmarks/calibrate_real_curation.py real_corpus [--workdir /tmp/g2w_real_cal] [--choose GAME]
"""

from __future__ import annotations

import argparse
import functools
import glob
import itertools
import json
import os
import pickle
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import cv2
import numpy as np

from g2w.curate.analyze import AnalyzeWindows, cut_and_shake
from g2w.curate.config import CurateConfig, QualityThresholds
from g2w.curate.cuts import (
    BLOCK_MATCH,
    CANDIDATE_SCORE,
    DISTINCT_MARGIN,
    MIN_BLOCKS,
    RETURN_FRAMES,
    CutThresholds,
    FrameSignals,
    Thumb,
    bridged,
    cut_scores,
    detail_matches,
    luma_thumb,
    motion_compensated_difference,
    side_means,
    unexplained_share,
)
from g2w.curate.quality import quality_reasons
from g2w.curate.ui_screen import mask_coverages, resolve_ui_screen
from g2w.curate.windows import plan_windows
from g2w.video.decode import iter_video_frames
from g2w.video.encode import VideoWriter
from g2w.video.sources import probe_row

WINDOW_S = 5.0
JITTER = 0.015  # per-frame jitter, fraction of the width
FLASHES = 2  # known flashes painted on each flashed clip
FLASH_FRAMES = (2, 8)  # shortest and longest flash (frames)
MATCH_S = 0.1  # a detected cut this close to an inserted one found it
RETURN_AFTER = 12  # frames after a step in which the transience cue looks for the view before it (0.4 s at 30 fps)
RETURN_SCORE = 0.8  # ... measured at steps scoring this much without the local cue (and at every inserted cut)
UNRELATED_EVERY = 15  # frames between the thumbnails kept to measure unrelated-frame differences
LABELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "real_in_game_jumps.json")
FINGERPRINT_FRAMES, FINGERPRINT_TOLERANCE = (0, 50, 100, 149), 1.0
# The job measures the local cue only where its own thresholds let it decide; the calibration
# measures it wherever a grid point could use it, and where it reports it: from CANDIDATE_SCORE up.


@functools.cache
def _manifest_games(corpus_dir: str) -> dict[str, str]:
    """clip_id -> game from a capture folder's manifest.parquet (unpaired games have no case)."""
    path = os.path.join(corpus_dir, "manifest.parquet")
    if not os.path.exists(path):
        return {}
    import pyarrow.parquet as pq

    table = pq.read_table(path, columns=["clip_id", "game"]).to_pydict()
    return dict(zip(table["clip_id"], table["game"]))


def _game_of(clip: str) -> str:
    """The game a clean clip shows: from the capture manifest, else its case's meta.json, else
    the folder above `clean/`."""
    corpus_dir = os.path.dirname(os.path.dirname(clip))
    clip_id = os.path.splitext(os.path.basename(clip))[0]
    if clip_id in _manifest_games(corpus_dir):
        return str(_manifest_games(corpus_dir)[clip_id])
    meta = os.path.join(corpus_dir, "cases", clip_id, "meta.json")
    if os.path.exists(meta):
        return str(json.load(open(meta)).get("game", "unknown"))
    return os.path.basename(corpus_dir) or "unknown"


def demo_of(clip: str) -> str:
    """The demo a capture clip comes from: its id without the `-sNNNN` start."""
    return os.path.splitext(os.path.basename(clip))[0].rsplit("-s", 1)[0]


def clean_clips(corpus: str) -> dict[str, list[str]]:
    games: dict[str, list[str]] = {}
    for clip in sorted(glob.glob(os.path.join(corpus, "**", "clean", "*.mp4"), recursive=True)):
        games.setdefault(_game_of(clip), []).append(clip)
    return games


def hud_clips(corpus: str) -> list[str]:
    found = glob.glob(os.path.join(corpus, "**", "cases", "*", "hud.mp4"), recursive=True)
    return sorted(p for p in found if not os.path.dirname(p).endswith(".partial"))  # still being written


def _frames(path: str, size: tuple[int, int] | None = None):
    for _, t, frame in iter_video_frames(path):
        rgb = frame.to_ndarray(format="rgb24")
        yield (
            t,
            rgb if size is None or rgb.shape[1::-1] == size else cv2.resize(rgb, size, interpolation=cv2.INTER_AREA),
        )


def _fps(path: str) -> float:
    return float(probe_row(path)["fps"])


def write_concat(parts: list[tuple[str, float]], out: str) -> list[float]:
    """The first `seconds` of each clip back to back, at the first clip's size and rate;
    returns the cut times."""
    fps = _fps(parts[0][0])
    size = next(_frames(parts[0][0]))[1].shape[1::-1]
    cuts = []
    with VideoWriter(out, size[0], size[1], fps, crf=18, preset="veryfast") as w:
        for k, (path, seconds) in enumerate(parts):
            if k:
                cuts.append(w.frames_written / fps)
            for t, rgb in _frames(path, size):
                if t + 1e-3 >= seconds:
                    break
                w.write(rgb)
    return cuts


def write_jitter(path: str, out: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    fps = _fps(path)
    h, w = next(_frames(path))[1].shape[:2]
    with VideoWriter(out, w, h, fps, crf=18, preset="veryfast") as writer:
        for _, rgb in _frames(path):
            dx, dy = rng.normal(0, JITTER * w, 2)
            writer.write(
                cv2.warpAffine(rgb, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT)
            )


def flash_layer(kind: str, strength: float, height: int, width: int, rng: np.random.Generator) -> tuple:
    """(weight map (height, width, 1), colour) of one flash: the frame becomes
    rgb * (1 - w) + colour * w. A blob of light (a muzzle flash, an explosion), a coloured tint
    fading across the frame (a pickup), or a red wash darker at the edges (damage)."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if kind == "brighten":
        cx, cy = rng.uniform(0.2, 0.8) * width, rng.uniform(0.3, 1.0) * height
        sigma = rng.uniform(0.15, 0.4) * width
        weight, colour = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma**2)), (255, 240, 200)
    elif kind == "tint":
        angle = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(angle) * (xx / width - 0.5) + np.sin(angle) * (yy / height - 0.5)) + 0.5
        weight = np.clip(ramp, 0, 1)
        colour = tuple(int(c) for c in rng.choice([(40, 255, 60), (60, 120, 255), (255, 220, 40)]))
    else:  # red wash, stronger towards the edges
        r = np.hypot(xx / width - 0.5, yy / height - 0.5) / np.hypot(0.5, 0.5)
        weight, colour = 0.4 + 0.6 * r, (255, 0, 0)
    return (strength * weight)[..., None], np.float32(colour)


def flash_events(seed: int, frames: int) -> list[dict]:
    """The known flashes of one clip (seeded): kind, first frame, length, peak strength."""
    rng = np.random.default_rng(seed)
    events = []
    for k in range(FLASHES):  # one in each half of the clip, away from its ends
        lo, hi = 6 + k * frames // FLASHES, (k + 1) * frames // FLASHES - FLASH_FRAMES[1] - 6
        events.append(
            {
                "kind": str(rng.choice(["brighten", "tint", "red-wash"])),
                "first": int(rng.integers(lo, max(hi, lo + 1))),
                "length": int(rng.integers(FLASH_FRAMES[0], FLASH_FRAMES[1] + 1)),
                "strength": float(rng.uniform(0.35, 0.75)),
                "seed": int(rng.integers(1 << 31)),
            }
        )
    return events


def write_flash(path: str, out: str, seed: int) -> list[dict]:
    """The clip with its known flashes painted on (each fades out over its frames); returns them."""
    fps = _fps(path)
    h, w = next(_frames(path))[1].shape[:2]
    frames = sum(1 for _ in _frames(path))
    events = flash_events(seed, frames)
    layers = [flash_layer(e["kind"], e["strength"], h, w, np.random.default_rng(e["seed"])) for e in events]
    with VideoWriter(out, w, h, fps, crf=18, preset="veryfast") as writer:
        for k, (_, rgb) in enumerate(_frames(path)):
            frame = rgb.astype(np.float32)
            for e, (weight, colour) in zip(events, layers):
                if e["first"] <= k < e["first"] + e["length"]:
                    fade = 1.0 - (k - e["first"]) / e["length"]  # full at onset, fading out
                    frame = frame * (1 - fade * weight) + colour * (fade * weight)
            writer.write(np.clip(frame, 0, 255).astype(np.uint8))
    return events


# Lengths taken from the first two clips of a concatenation: cuts inside windows and on a boundary.
_PART_S = ((2.5, 4.0), (5.0, 3.3), (3.7, 5.0), (1.6, 5.0))


def build(games: dict[str, list[str]], workdir: str) -> list[dict]:
    """The videos to measure with their truth: {path, game, kind, cuts (s), shaky_from (s or
    None), recipe}; `make` writes the built ones (in the worker pool, so they build in parallel)."""
    os.makedirs(workdir, exist_ok=True)
    videos = []
    for game, clips in games.items():
        for i, clip in enumerate(clips):
            clip_id = os.path.splitext(os.path.basename(clip))[0]  # file names stay when clips are added
            videos.append({"path": clip, "game": game, "kind": "continuous", "cuts": [], "shaky_from": None})
            if len(clips) >= 2:  # with two, the third part is the first clip again: a jump back
                first, second = _PART_S[i % len(_PART_S)]
                parts = [[clip, first], [clips[(i + 1) % len(clips)], second], [clips[(i + 2) % len(clips)], 99.0]]
                videos.append(
                    {
                        "path": os.path.join(workdir, f"{game}_concat_{clip_id}.mp4"),
                        "game": game,
                        "kind": "concatenated",
                        "cuts": None,
                        "shaky_from": None,
                        "recipe": parts,
                    }
                )
            if i % 2 == 0:
                videos.append(
                    {
                        "path": os.path.join(workdir, f"{game}_jitter_{clip_id}.mp4"),
                        "game": game,
                        "kind": "jittered",
                        "cuts": [],
                        "shaky_from": 0.0,
                        "recipe": [clip, zlib.crc32(clip_id.encode())],
                    }
                )
            videos.append(
                {
                    "path": os.path.join(workdir, f"{game}_flash_{clip_id}.mp4"),
                    "game": game,
                    "kind": "flashed",
                    "cuts": [],
                    "shaky_from": None,
                    "source": clip,
                    "recipe": [clip, zlib.crc32(b"flash" + clip_id.encode())],
                }
            )
    return videos


def make(video: dict) -> dict:
    """Write a built video unless it is there already (written under a temporary name, then
    renamed, so a killed run leaves no half video); returns it with its cuts known."""
    video = dict(video)
    recipe, out = video.pop("recipe", None), video["path"]
    part = out[:-4] + ".partial.mp4"
    if video["kind"] == "concatenated":
        cuts_file = out[:-4] + ".json"
        known = json.load(open(cuts_file)) if os.path.exists(cuts_file) else {}
        if known.get("parts") != recipe or not os.path.exists(out):  # new, or its neighbours changed
            known = {"parts": recipe, "cuts": write_concat([tuple(p) for p in recipe], part)}
            os.replace(part, out)
            json.dump(known, open(cuts_file, "w"))
        video["cuts"] = known["cuts"]
        video["recipe_parts"] = [tuple(p) for p in known["parts"]]
    elif video["kind"] == "jittered" and not os.path.exists(out):
        write_jitter(recipe[0], part, recipe[1])
        os.replace(part, out)
    elif video["kind"] == "flashed":
        events_file = out[:-4] + ".json"
        known = json.load(open(events_file)) if os.path.exists(events_file) else {}
        if known.get("recipe") != recipe or not os.path.exists(out):
            known = {"recipe": recipe, "flashes": write_flash(recipe[0], part, recipe[1])}
            os.replace(part, out)
            json.dump(known, open(events_file, "w"))
        video["flashes"] = known["flashes"]
    return video


def cache_path(video: dict, workdir: str) -> str:
    return os.path.join(
        workdir,
        "signals",
        os.path.basename(os.path.dirname(video["path"])) + "_" + os.path.basename(video["path"]) + ".pkl",
    )


def configured_screen() -> str:
    """The UI screen `g2w curate` runs by default here (its `auto` resolved)."""
    return resolve_ui_screen(CurateConfig().ui_detector)[0]


def signals_of(video: dict, workdir: str, peers: bool = True) -> dict:
    """The analysis thumbnails of every frame of one built video, the sampled-frame quality
    measures of its windows (under the configured UI screen), and PySceneDetect's cuts on the
    same file; cached, and completed in place when a cache lacks a part (an older format)."""
    video = make(video)
    cache = cache_path(video, workdir)
    screen = configured_screen()
    if os.path.exists(cache) and os.path.getmtime(cache) > os.path.getmtime(video["path"]):
        measured = {**pickle.load(open(cache, "rb")), **video}
        stale = False
        if video["kind"] != "hud" and "blocks" not in measured.get("frames", {}):  # older caches: no local cue
            measured.update(frames=_thumbs(video["path"])[0])
            stale = True
        if video["kind"] in ("continuous", "hud") and measured.get("ui_screen", "static-edges") != screen:
            measured.update(windows=_windows(video["path"]), ui_screen=screen)
            stale = True
        if video["kind"] == "hud" and any("true_coverage" not in w for w in measured["windows"]):
            _add_truth(measured)
            stale = True
        if stale:
            _save(measured, cache)
        return measured
    measured = _measure(video, peers)
    _save(measured, cache)
    return measured


def _save(measured: dict, cache: str) -> None:
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".partial", "wb") as f:
        pickle.dump(measured, f)
    os.replace(cache + ".partial", cache)


def _thumbs(path: str) -> tuple[dict, float]:
    """Every frame's analysis thumbnail (the job's `luma_thumb`), and the seconds it took."""
    start = time.perf_counter()
    times, pixels, contrast, histogram, blocks = [], [], [], [], []
    for _, t, frame in iter_video_frames(path, threads=1):
        thumb = luma_thumb(frame)
        times.append(t), pixels.append(thumb.pixels), contrast.append(thumb.contrast), histogram.append(thumb.histogram)
        blocks.append(thumb.blocks)
    frames = {
        "times": np.array(times),
        "pixels": np.array(pixels, np.float32),
        "contrast": np.array(contrast),
        "histogram": np.array(histogram, np.float32),
        "blocks": np.array(blocks, np.uint8),
    }
    return frames, time.perf_counter() - start


def _windows(path: str) -> list[dict]:
    """The job's window analysis (quality checks, the configured UI screen) of one clip."""
    rows = AnalyzeWindows(ui_detector=configured_screen()).analyze_source(probe_row(path))
    return [
        {
            k: r[k]
            for k in (
                "start_s",
                "end_s",
                "status",
                "luma_mean",
                "dark_fraction",
                "bright_fraction",
                "sharpness",
                "frozen_fraction",
                "border_fraction",
                "ui_coverage",
                "width",
                "height",
                "fps",
            )
        }
        for r in rows
    ]


def with_cues(video: dict) -> dict:
    """The video with the job's per-frame cues, `FrameSignals` replayed on its thumbnails."""
    if "frames" not in video:
        return video
    f, s = video["frames"], FrameSignals(measure_from=CANDIDATE_SCORE)
    blocks = f.get("blocks")
    for k in range(len(f["times"])):
        s.add(
            float(f["times"][k]),
            Thumb(f["pixels"][k], float(f["contrast"][k]), f["histogram"][k], None if blocks is None else blocks[k]),
        )
    return {
        **video,
        "times": np.array(s.times),
        "difference": np.array(s.difference),
        **dict(zip(("unexplained", "coherent", "standout"), s.local_cue_arrays())),
        "back": s.return_array(),
        "histogram": np.array(s.histogram),
        "flat": np.array(s.flat, bool),
        "shift": np.array(s.shift).reshape(-1, 2),
        **dict(zip(("bridge", "bridge_histogram"), s.bridge_arrays())),
        "thumbs": list(f["pixels"][::UNRELATED_EVERY]),
    }


def scores_of(v: dict, t: CutThresholds) -> np.ndarray:
    return cut_scores(
        v["difference"],
        v["histogram"],
        v["flat"],
        t,
        v.get("bridge"),
        v.get("bridge_histogram"),
        v.get("unexplained"),
        v.get("coherent"),
        v.get("standout"),
        v.get("back"),
    )


def _measure(video: dict, peers: bool = True) -> dict:
    """Only what the figures read: cut and shake cues for every built video, the peers where
    cuts are judged (continuous and concatenated), the job's window analysis (quality, UI
    screen) for the clips as captured, with or without their HUD."""
    from scenedetect import AdaptiveDetector, ContentDetector, detect

    out = {**video, "ours_s": 0.0, "peers": {}, "windows": [], "ui_screen": configured_screen()}
    if video["kind"] != "hud":
        out["frames"], decode_s = _thumbs(video["path"])
        start = time.perf_counter()
        with_cues(out)  # the cues' own cost, on top of the decode and thumbnails
        out["ours_s"] = decode_s + time.perf_counter() - start
    if peers and video["kind"] in ("continuous", "concatenated"):
        for name, detector in (("scenedetect-adaptive", AdaptiveDetector), ("scenedetect-content", ContentDetector)):
            start = time.perf_counter()
            scenes = detect(video["path"], detector())
            out["peers"][name] = ([sc[0].seconds for sc in scenes[1:]], time.perf_counter() - start)
    if video["kind"] in ("continuous", "hud"):
        out["windows"] = _windows(video["path"])
    if video["kind"] == "hud":
        _add_truth(out)
    return out


def _add_truth(measured: dict) -> None:
    """Each HUD window's true UI coverage, from the pair's `mask.mkv` beside its `hud.mp4`."""
    windows = measured["windows"]
    truth = mask_coverages(
        os.path.join(os.path.dirname(measured["path"]), "mask.mkv"), [(w["start_s"], w["end_s"]) for w in windows]
    )
    for w, t in zip(windows, truth):
        w["true_coverage"] = t


def load_labels(path: str | None) -> dict:
    """clip id -> {fingerprint, jumps: [{frames: [first, last], kind, note}]} (empty without a file)."""
    if not path:
        return {}
    return json.load(open(path))["clips"]


def fingerprint_matches(video: dict, label: dict) -> bool:
    """Whether a clip is the one the labels were made on (thumbnail contrast at fixed frames)."""
    contrast = video["frames"]["contrast"]
    if len(contrast) <= max(FINGERPRINT_FRAMES):
        return False
    return all(
        abs(contrast[k] - want) <= FINGERPRINT_TOLERANCE for k, want in zip(FINGERPRINT_FRAMES, label["fingerprint"])
    )


def attach_jumps(videos: list[dict], labels: dict) -> list[str]:
    """Set each video's `jumps` ([(first, last)] frame times of labelled in-game jumps), for the
    clips as captured and for the parts of concatenations cut from them; returns warnings for
    labelled clips whose fingerprint does not match (their labels are not used)."""
    clip_of = lambda path: os.path.splitext(os.path.basename(path))[0]
    usable, warnings = {}, []
    for v in videos:
        if v["kind"] == "continuous" and clip_of(v["path"]) in labels:
            label = labels[clip_of(v["path"])]
            if fingerprint_matches(v, label):
                usable[v["path"]] = [tuple(j["frames"]) for j in label["jumps"]]
            else:
                warnings.append(
                    f"{clip_of(v['path'])}: not the clip the in-game jumps were labelled on "
                    "(fingerprint differs); its labels are not used"
                )
    for v in videos:
        v["jumps"] = []
        if v["kind"] in ("continuous", "flashed"):  # a flashed clip: the frames of its source
            ranges = [(0, r) for r in usable.get(v.get("source", v["path"]), [])]
        elif v["kind"] == "concatenated":
            fps = 1.0 / float(np.median(np.diff(v["times"])))
            starts = [0] + [int(round(c * fps)) for c in v["cuts"]]
            ends = starts[1:] + [len(v["times"])]
            ranges = [
                (start, r)
                for (path, _), start, end in zip(v["recipe_parts"], starts, ends)
                for r in usable.get(path, [])
                if start + r[0] < end
            ]
        else:
            ranges = []
        for start, (first, last) in ranges:
            last = min(start + last, len(v["times"]) - 1)
            v["jumps"].append((float(v["times"][start + first]), float(v["times"][last])))
    return warnings


def at_jump(t: float, jumps: list[tuple[float, float]]) -> bool:
    return any(first - MATCH_S <= t <= last + MATCH_S for first, last in jumps)


def jump_inside(jumps: list[tuple[float, float]], start: float, end: float) -> bool:
    """A labelled jump with a frame inside the window (its first frame is the boundary)."""
    return any(last > start + 1e-3 and first < end - 1e-3 for first, last in jumps)


def duration_of(v: dict) -> float:
    """Last frame's start plus one frame interval."""
    return float(v["times"][-1] + np.median(np.diff(v["times"])))


def _inside(t: float, start: float, end: float) -> bool:
    return start + 1e-3 < t < end - 1e-3


def _judge_hits(hits, v: dict) -> tuple[int, int, int, int, int]:
    """(detected, true, at an in-game jump, inserted cuts, inserted cuts found): a detection
    at a labelled in-game jump is neither true nor false."""
    true = [any(abs(h - c) <= MATCH_S for c in v["cuts"]) for h in hits]
    jump = [not t and at_jump(h, v.get("jumps", [])) for h, t in zip(hits, true)]
    found = sum(any(abs(h - c) <= MATCH_S for h in hits) for c in v["cuts"])
    return len(hits), sum(true), sum(jump), len(v["cuts"]), found


def _rates(n: dict) -> dict:
    judged = n["detected"] - n["at_jump"]
    return {
        **n,
        "cut_recall": n["cuts_found"] / max(n["cuts"], 1),
        "cut_precision": n["true_detected"] / max(judged, 1),
        "clean_keep": n["clean_kept"] / max(n["clean_windows"], 1),
    }


def evaluate(videos: list[dict], cut_t: CutThresholds, max_shake: float) -> dict:
    """Cut recall and precision (cut events), clean-window keep rate and shake detection; the
    windows holding a labelled in-game jump (and no inserted cut) apart, with how many are flagged."""
    n = dict.fromkeys(
        (
            "detected",
            "true_detected",
            "at_jump",
            "cuts",
            "cuts_found",
            "clean_windows",
            "clean_kept",
            "shaky_windows",
            "shake_caught",
            "jump_windows",
            "jump_flagged",
            "flash_windows",
            "flash_kept",
        ),
        0,
    )
    for v in videos:
        scores = scores_of(v, cut_t)
        hits = v["times"][scores >= 1.0]
        if v["kind"] == "flashed":  # clean windows with known flashes: kept or not, apart from the rest
            for w in plan_windows(duration_of(v), WINDOW_S):
                if not jump_inside(v.get("jumps", []), w.start_s, w.end_s):
                    m = cut_and_shake(v["times"], scores, v["shift"], w.start_s, w.end_s)
                    n["flash_windows"] += 1
                    n["flash_kept"] += int(m["cut_count"] == 0 and m["shake"] <= max_shake)
            continue
        for key, value in zip(("detected", "true_detected", "at_jump", "cuts", "cuts_found"), _judge_hits(hits, v)):
            n[key] += value
        for w in plan_windows(duration_of(v), WINDOW_S):
            m = cut_and_shake(v["times"], scores, v["shift"], w.start_s, w.end_s)
            has_cut = any(_inside(c, w.start_s, w.end_s) for c in v["cuts"])
            is_shaky = v["shaky_from"] is not None and w.start_s + 1e-3 >= v["shaky_from"]
            if is_shaky:
                n["shaky_windows"] += 1
                n["shake_caught"] += int(m["shake"] > max_shake)
            elif has_cut:
                continue
            elif jump_inside(v.get("jumps", []), w.start_s, w.end_s):
                n["jump_windows"] += 1
                n["jump_flagged"] += int(m["cut_count"] > 0)
            else:
                n["clean_windows"] += 1
                n["clean_kept"] += int(m["cut_count"] == 0 and m["shake"] <= max_shake)
    return {
        **_rates(n),
        "shake_recall": n["shake_caught"] / max(n["shaky_windows"], 1),
        "flash_keep": n["flash_kept"] / max(n["flash_windows"], 1),
    }


def peer_scores(videos: list[dict], name: str) -> dict:
    """The same figures for a PySceneDetect detector (in-game jumps apart as for ours)."""
    n = dict.fromkeys(
        (
            "detected",
            "true_detected",
            "at_jump",
            "cuts",
            "cuts_found",
            "clean_windows",
            "clean_kept",
            "jump_windows",
            "jump_flagged",
        ),
        0,
    )
    for v in videos:
        if name not in v["peers"]:  # jittered: no cut is judged there
            continue
        hits = v["peers"][name][0]
        for key, value in zip(("detected", "true_detected", "at_jump", "cuts", "cuts_found"), _judge_hits(hits, v)):
            n[key] += value
        for w in plan_windows(duration_of(v), WINDOW_S):
            if v["shaky_from"] is not None or any(_inside(c, w.start_s, w.end_s) for c in v["cuts"]):
                continue
            flagged = any(_inside(h, w.start_s, w.end_s) for h in hits)
            if jump_inside(v.get("jumps", []), w.start_s, w.end_s):
                n["jump_windows"] += 1
                n["jump_flagged"] += int(flagged)
            else:
                n["clean_windows"] += 1
                n["clean_kept"] += int(not flagged)
    return _rates(n)


def unrelated_level(videos: list[dict]) -> float:
    """Median motion-compensated difference between thumbnails of different continuous clips,
    taken at the same offsets: what "sharing nothing" looks like in this footage."""
    clips = [v["thumbs"] for v in videos if v["kind"] == "continuous"]
    return float(
        np.median(
            [
                motion_compensated_difference(a[k], b[k])[0]
                for a, b in itertools.permutations(clips, 2)
                for k in range(min(len(a), len(b)))
            ]
        )
    )


def structural_thresholds(videos: list[dict], neighbours: int) -> tuple[float, float]:
    """(decorrelated, ratio_decorrelated) by the midpoint rule in the module docstring,
    iterated until it settles."""
    cut_r, other_d, other_r = [], [], []
    for v in videos:
        if v["kind"] == "flashed":  # painted flashes are judged by the grid (as clean windows), not by this rule
            continue
        d, _, flat = bridged(v["difference"], v["histogram"], v["flat"], v.get("bridge"), v.get("bridge_histogram"))
        sided = d / np.maximum(np.maximum(*side_means(d, neighbours, ~flat)), 0.01)
        at_cut = np.zeros(len(d), bool)
        for c in v["cuts"]:
            at_cut[int(np.argmin(np.abs(v["times"] - c)))] = True
        jump = np.array([at_jump(t, v.get("jumps", [])) for t in v["times"]], bool)  # not a turn: left out
        real = ~flat
        cut_r += list(sided[at_cut & real])
        other_d += list(d[~at_cut & real & ~jump])
        other_r += list(sided[~at_cut & real & ~jump])
    cut_r, other_d, other_r = np.array(cut_r), np.array(other_d), np.array(other_r)
    unrelated, ratio = unrelated_level(videos), float(cut_r.min())
    for _ in range(20):
        level = (other_d[other_r >= ratio].max(initial=0.0) + unrelated) / 2
        ratio = (other_r[other_d >= level].max(initial=1.0) + cut_r.min()) / 2
    return round(float(level), 3), round(float(ratio), 3)


def choose(videos: list[dict]) -> tuple[CutThresholds, float]:
    """The structural path by its midpoint rule, then the grid point that finds every inserted
    cut and keeps the most clean windows, then the most flashed ones, then catches the most shake; ties go to the
    defaults' side (listed first)."""
    level, ratio = structural_thresholds(videos, CutThresholds().neighbours)
    base = replace(
        CutThresholds(),
        decorrelated=level,
        ratio_decorrelated=ratio,
        standout_score=float("inf"),
        veto_return=0.0,
        veto_run=0.0,
    )
    grid = itertools.product(
        (base.floor, 0.2, 0.4), (base.ratio, 2.0, 3.0, 4.0), (base.histogram, 0.1, 0.25), (base.ratio_alone, 5.0, 12.0)
    )
    best = None
    for floor, ratio, hist, alone in grid:
        t = replace(base, floor=floor, ratio=ratio, histogram=hist, ratio_alone=alone)
        r = evaluate(videos, t, QualityThresholds().max_shake)
        key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])  # in-game jump windows: neither
        if best is None or key > best[0]:
            best = (key, t)
    cut_t = local_cue_thresholds(videos, best[1])
    shakes = [(evaluate(videos, cut_t, s), s) for s in (QualityThresholds().max_shake, 0.1, 0.15, 0.2, 0.3, 0.4)]
    max_shake = max(shakes, key=lambda x: (x[0]["clean_keep"], x[0]["flash_keep"], x[0]["shake_recall"]))[1]
    return cut_t, max_shake


# The local cue's promotion grid, from the mildest change on (none first): ties go to the milder point,
# not to the configured defaults, so a direction's promotion owes nothing to them.
_PROMOTE_SCORE = (float("inf"), 0.95, 0.9, 0.85, 0.8, 0.75, 0.7)
_PROMOTE_SHARE = (0.9, 0.8, 0.7, 0.6, 0.5, 0.4)
_VETO_COHERENT = (float("inf"), 0.6, 0.5, 0.4, 0.3, 0.25, 0.2)
_STANDOUT_SCORE = (float("inf"), 0.95, 0.9, 0.85, 0.8)
_STANDOUT_SHARE = (0.4, 0.3, 0.25, 0.2, 0.15)
_VETO_RETURN = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7)  # the return veto, off first
_VETO_RUN = (0.0, 1.25, 1.5, 1.75, 2.0)  # the run veto, off first


def local_cue_thresholds(videos: list[dict], base: CutThresholds) -> CutThresholds:
    """The local cue's promotion (score, unexplained share) and veto (coherent share) on top of
    the chosen thresholds: the grid point that finds the most inserted cuts, then keeps the most
    clean windows, then the most flashed ones (known flashes painted on clean clips), then is the most precise;
    ties go to the mildest. The stand-out's promotion (score, excess unexplained share over the
    neighbouring steps) is searched last, on top of that point, by the same key."""
    grid = itertools.product(_VETO_COHERENT, _PROMOTE_SCORE, _PROMOTE_SHARE)
    best = None
    for veto, score, share in grid:
        t = replace(
            base,
            promote_score=score,
            promote_unexplained=share,
            veto_coherent=veto,
            standout_score=float("inf"),
            veto_return=0.0,
            veto_run=0.0,
        )
        r = evaluate(videos, t, QualityThresholds().max_shake)
        key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])
        if best is None or key > best[0]:
            best = (key, t)
    for score, share in itertools.product(_STANDOUT_SCORE, _STANDOUT_SHARE):  # then the stand-out, on top
        t = replace(best[1], standout_score=score, standout_unexplained=share)
        r = evaluate(videos, t, QualityThresholds().max_shake)
        key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])
        if key > best[0]:
            best = (key, t)
    for field, levels in (("veto_return", _VETO_RETURN), ("veto_run", _VETO_RUN)):  # then each veto, on top
        for level in levels:
            t = replace(best[1], **{field: level})
            r = evaluate(videos, t, QualityThresholds().max_shake)
            key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])
            if key > best[0]:
                best = (key, t)
    return best[1]


def veto_directions(videos: list[dict], names: list[str], field: str, levels: tuple, title: str) -> dict:
    """One veto alone, out of sample: on top of the configured thresholds (that veto off), its
    level chosen on one game by the grids' key (ties to off, the first level) and reported on
    every other game next to the same thresholds without it."""
    off = replace(CutThresholds(), **{field: levels[0]})
    out = {}
    print(f"\n## the {title} alone, chosen on one game on top of the configured thresholds, held out on the others")
    print(_HEADER.format("held-out group: thresholds"))
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        best = None
        for level in levels:
            t = replace(off, **{field: level})
            r = evaluate(mine, t, QualityThresholds().max_shake)
            key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])
            if best is None or key > best[0]:
                best = (key, t)
        chosen = getattr(best[1], field)
        out[g] = {field: chosen}
        print(_row(f"{g} (in sample): {title} {chosen:g}", evaluate(mine, best[1], QualityThresholds().max_shake)))
        for h in names:
            if h != g:
                theirs = [v for v in videos if v["game"] == h]
                for label, t in (("without", off), (f"chosen on {g}: {chosen:g}", best[1])):
                    print(_row(f"{h}: {title} {label}", evaluate(theirs, t, QualityThresholds().max_shake)))
    return out


def run_report(videos: list[dict]) -> None:
    """The run veto's cue where it decides: the step's difference over the smaller of its two
    adjacent steps' (both solid), at every inserted cut and at every other step the configured
    thresholds without the run veto call a cut, by kind of step."""
    plain = replace(CutThresholds(), veto_run=0.0)
    classes: dict[str, list] = {"inserted cut": [], "false detection": [], "painted flash": [], "in-game jump": []}
    for v in videos:
        d, _, flat = bridged(v["difference"], v["histogram"], v["flat"], v.get("bridge"), v.get("bridge_histogram"))
        cut_frames = {int(np.argmin(np.abs(v["times"] - c))) for c in v["cuts"]}
        painted = {k for e in v.get("flashes", []) for k in range(e["first"], e["first"] + e["length"] + 1)}
        scores = scores_of(v, plain)
        for i in range(1, len(d) - 1):
            if flat[i - 1] or flat[i + 1] or flat[i] or (i not in cut_frames and scores[i] < 1):
                continue
            kind = (
                "inserted cut"
                if i in cut_frames
                else "painted flash"
                if i in painted
                else "in-game jump"
                if at_jump(v["times"][i], v["jumps"])
                else "false detection"
            )
            classes[kind].append(
                (os.path.basename(v["path"]).split(".")[0], i, d[i] / max(min(d[i - 1], d[i + 1]), 0.01))
            )
    print(
        "\n## run veto cue: the step's difference over the smaller adjacent step's (a step inside a run of "
        "decorrelating steps is low); min/median/max, the lowest five named"
    )
    for kind, rows in classes.items():
        if rows:
            r = np.array([x[2] for x in rows])
            low = sorted(rows, key=lambda x: x[2])[:5]
            print(
                f"  {kind}: {len(rows)} steps, {r.min():.2f}/{np.median(r):.2f}/{r.max():.2f}; "
                + ", ".join(f"{n} {i} ({x:.2f})" for n, i, x in low)
            )


def standout_directions(videos: list[dict], names: list[str]) -> dict:
    """The stand-out alone, out of sample: on top of the configured thresholds (the stand-out off),
    its grid point chosen on one game by the grids' key (ties to the mildest, off first) and
    reported on every other game next to the same thresholds without it."""
    off = replace(CutThresholds(), standout_score=float("inf"))
    out = {}
    print("\n## the stand-out alone, chosen on one game on top of the configured thresholds, held out on the others")
    print(_HEADER.format("held-out group: thresholds"))
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        best = None
        for score, share in itertools.product(_STANDOUT_SCORE, _STANDOUT_SHARE):
            t = replace(off, standout_score=score, standout_unexplained=share)
            r = evaluate(mine, t, QualityThresholds().max_shake)
            key = (r["cut_recall"], r["clean_keep"], r["flash_keep"], r["cut_precision"])
            if best is None or key > best[0]:
                best = (key, t)
        chosen = best[1]
        out[g] = {"standout_score": chosen.standout_score, "standout_unexplained": chosen.standout_unexplained}
        for h in names:
            if h != g:
                theirs = [v for v in videos if v["game"] == h]
                for label, t in (
                    ("without", off),
                    (f"chosen on {g}: {chosen.standout_score:g} / {chosen.standout_unexplained:g}", chosen),
                ):
                    print(_row(f"{h}: stand-out {label}", evaluate(theirs, t, QualityThresholds().max_shake)))
    return out


def local_cue_report(videos: list[dict]) -> None:
    """The local cue (share of blocks no nearby shift explains) where it was measured: at the
    inserted cuts, at the detections of the configured thresholds without the local cue that are
    neither cuts nor labelled jumps (flashes, overlays, strafes), at detected in-game jumps, and
    at the other candidate steps."""
    plain = replace(CutThresholds(), promote_score=float("inf"), veto_coherent=float("inf"))
    classes: dict[str, list] = {
        "inserted cut": [],
        "false detection": [],
        "painted flash": [],
        "in-game jump": [],
        "other candidate": [],
    }
    for v in videos:
        if v["kind"] == "jittered" or "unexplained" not in v:
            continue
        cut_frames = {int(np.argmin(np.abs(v["times"] - c))) for c in v["cuts"]}
        painted = {k for e in v.get("flashes", []) for k in range(e["first"], e["first"] + e["length"] + 1)}
        scores = cut_scores(
            v["difference"], v["histogram"], v["flat"], plain, v.get("bridge"), v.get("bridge_histogram")
        )
        back = v.get("back", np.full(len(v["unexplained"]), np.nan))
        for i in np.flatnonzero(np.isfinite(v["unexplained"]) | np.isfinite(back)):
            if v["kind"] == "flashed" and i not in painted:  # the rest is its source clip's, counted there
                continue
            kind = (
                "inserted cut"
                if i in cut_frames
                else "painted flash"
                if i in painted
                else "in-game jump"
                if at_jump(v["times"][i], v["jumps"])
                else "false detection"
                if scores[i] >= 1
                else "other candidate"
            )
            if kind != "in-game jump" or scores[i] >= 1:
                classes[kind].append(
                    (
                        os.path.basename(v["path"]),
                        int(i),
                        float(scores[i]),
                        float(v["unexplained"][i]),
                        float(v["coherent"][i]),
                        float(v.get("standout", v["unexplained"])[i]),
                        float(back[i]),
                    )
                )
    print(
        "\n## local cue at candidate steps (score without it >= "
        f"{CANDIDATE_SCORE}): share of blocks no nearby shift explains (a flash or a turn low, a cut high), and "
        "share of informative detail matches at the camera's offset (a flash high, a cut low); min/median/max"
    )
    for kind, rows in classes.items():
        if rows:
            u, c = np.array([r[3] for r in rows]), np.array([r[4] for r in rows])
            u, c = u[np.isfinite(u)], c[np.isfinite(c)]
            b = np.array([r[6] for r in rows if r[2] >= 1])
            b = b[np.isfinite(b)]
            if len(b):
                print(
                    f"  {kind}: return (difference to the view before, within {RETURN_FRAMES} frames, over the "
                    f"step's own; camera resting) at {len(b)} steps scoring >= 1: {b.min():.2f}/{np.median(b):.2f}/"
                    f"{b.max():.2f}; <= 0.5: {int(np.sum(b <= 0.5))}, <= 0.6: {int(np.sum(b <= 0.6))}"
                )
            so = np.array([r[5] for r in rows])
            so = so[np.isfinite(so)]
            if len(so):
                near = [r[5] for r in rows if 0.8 <= r[2] < 1 and np.isfinite(r[5])]
                print(
                    f"  {kind}: stand-out (unexplained less the larger neighbour's) {so.min():.2f}/{np.median(so):.2f}/"
                    f"{so.max():.2f}" + (f"; at scores 0.8-1: {len(near)} steps, max {max(near):.2f}" if near else "")
                )
            if len(u) and len(c):
                print(
                    f"  {kind}: {len(u)} steps, unexplained {u.min():.2f}/{np.median(u):.2f}/{u.max():.2f}, coherent "
                    f"{c.min():.2f}/{np.median(c):.2f}/{c.max():.2f}"
                    + (
                        f"; 90th percentiles {np.quantile(u, 0.9):.2f}, {np.quantile(c, 0.9):.2f}"
                        if kind == "other candidate"
                        else ""
                    )
                )
            shown = rows if kind != "painted flash" else [r for r in rows if r[2] >= 1]  # those that score as cuts
            if kind in ("false detection", "inserted cut", "painted flash") and shown:
                print(
                    "    "
                    + ", ".join(
                        f"{n.split('.')[0]} {i} (score {sc:.2f}, {u:.2f}, {c:.2f}, {so:.2f}, {bk:.2f})"
                        for n, i, sc, u, c, so, bk in shown
                    )
                )


PERSIST_AFTER = (3, 4, 5, 6)  # frames after a step at which a flash should have gone


def persistence(v: dict, i: int) -> tuple[float, float] | None:
    """The persistence cue of step i (frame i-1 -> i): does the picture come back? (the smallest
    difference between frame i-1 and frames i+3..i+6 over the step's own difference, and over the
    difference the camera's own motion makes over as many frames before the step); None near an end."""
    px, ks = v["frames"]["pixels"], [k for k in PERSIST_AFTER if i + k < len(v["frames"]["pixels"]) and i - 1 - k >= 0]
    if not ks:
        return None
    back = min(motion_compensated_difference(px[i - 1], px[i + k])[0] for k in ks)
    drift = float(np.median([motion_compensated_difference(px[i - 1 - k], px[i - 1])[0] for k in ks]))
    return back / max(v["difference"][i], 0.01), back / max(drift, 0.05)


def persistence_report(videos: list[dict]) -> None:
    """The persistence cue at every inserted cut, every labelled in-game jump the configured
    thresholds detect, and every false detection of the configured thresholds."""
    classes: dict[str, list] = {"inserted cut": [], "in-game jump": [], "false detection": []}
    for v in videos:
        if v["kind"] == "jittered":
            continue
        cut_frames = {int(np.argmin(np.abs(v["times"] - c))) for c in v["cuts"]}
        hits = set(np.flatnonzero(scores_of(v, CutThresholds()) >= 1.0))
        for i in sorted(cut_frames | hits):
            kind = (
                "inserted cut"
                if i in cut_frames
                else "in-game jump"
                if at_jump(v["times"][i], v["jumps"])
                else "false detection"
            )
            value = persistence(v, i)
            if value is not None:
                classes[kind].append((os.path.basename(v["path"]), i, *value))
    print(
        "\n## persistence cue (comes back / own difference, comes back / motion drift): "
        "a flash should score low, a cut high"
    )
    for kind, rows in classes.items():
        if rows:
            a, b = np.array([r[2] for r in rows]), np.array([r[3] for r in rows])
            print(
                f"  {kind}: {len(rows)} steps, vs own difference {a.min():.2f}/{np.median(a):.2f}/{a.max():.2f}, "
                f"vs drift {b.min():.2f}/{np.median(b):.2f}/{b.max():.2f} (min/median/max)"
            )
        if kind != "inserted cut":
            for name, i, x, y in rows:
                print(f"    {name} frame {i}: {x:.2f}, {y:.2f}")


def informative_share(rows: np.ndarray) -> float:
    """The share of detail blocks (`detail_matches` rows) matched at BLOCK_MATCH or better and better
    than their own look-alikes by DISTINCT_MARGIN, wherever the match lies; NaN with too few blocks."""
    if len(rows) < MIN_BLOCKS:
        return float("nan")
    return float(np.mean((rows[:, 0] >= BLOCK_MATCH) & (rows[:, 0] - rows[:, 3] >= DISTINCT_MARGIN)))


def transience(v: dict, i: int) -> tuple[float, float, float, float, int] | None:
    """The transience cue of step i (frame i-1 -> i): does the view before the step come back within
    RETURN_AFTER frames? (the step's own unexplained share, the smallest unexplained share of frame
    i-1 against frames i+1..i+K, the step's own informative detail share, the largest of i-1
    against i+1..i+K, and the k where that largest lies). A flash should come back (low, high), a
    cut should not. None without the 160x90 luma or without a frame after the step."""
    blocks = v["frames"].get("blocks")
    if blocks is None or i < 1:
        return None
    ks = [k for k in range(1, RETURN_AFTER + 1) if i + k < len(blocks)]
    if not ks:
        return None
    plain = [unexplained_share(blocks[i - 1], blocks[i + k]) for k in ks]
    detail = [informative_share(detail_matches(blocks[i - 1], blocks[i + k])) for k in ks]
    best = int(np.nanargmax(detail)) if np.isfinite(detail).any() else 0
    return (
        unexplained_share(blocks[i - 1], blocks[i]),
        float(np.nanmin(plain)) if np.isfinite(plain).any() else np.nan,
        informative_share(detail_matches(blocks[i - 1], blocks[i])),
        float(np.nanmax(detail)) if np.isfinite(detail).any() else np.nan,
        ks[best],
    )


def transience_report(videos: list[dict]) -> None:
    """The transience cue at every inserted cut (those the configured thresholds miss listed), at
    painted flash steps reaching the cut score without the local cue, at the false detections of
    that score (neither cuts, jumps nor painted), at labelled in-game jumps reaching it, and at
    the other steps scoring RETURN_SCORE-1."""
    base = CutThresholds()
    classes: dict[str, list] = {
        "inserted cut": [],
        "painted flash": [],
        "false detection": [],
        "in-game jump": [],
        f"other step scoring {RETURN_SCORE:g}-1": [],
    }
    for v in videos:
        if v["kind"] == "jittered" or "frames" not in v:
            continue
        cut_frames = {int(np.argmin(np.abs(v["times"] - c))) for c in v["cuts"]}
        painted = {k for e in v.get("flashes", []) for k in range(e["first"], e["first"] + e["length"] + 1)}
        plain = cut_scores(v["difference"], v["histogram"], v["flat"], base, v.get("bridge"), v.get("bridge_histogram"))
        found = scores_of(v, base) >= 1.0
        for i in sorted(cut_frames | set(np.flatnonzero(plain >= RETURN_SCORE))):
            if v["kind"] == "flashed" and i not in painted:  # the rest is its source clip's, counted there
                continue
            kind = (
                "inserted cut"
                if i in cut_frames
                else "painted flash"
                if i in painted
                else "in-game jump"
                if at_jump(v["times"][i], v["jumps"])
                else "false detection"
                if plain[i] >= 1
                else f"other step scoring {RETURN_SCORE:g}-1"
            )
            if kind in ("painted flash", "in-game jump") and plain[i] < 1:
                continue
            value = transience(v, i)
            if value is not None:
                classes[kind].append(
                    (os.path.basename(v["path"]).split(".")[0], i, float(plain[i]), bool(found[i]), *value)
                )
    print(
        f"\n## transience cue (does the view of frame t-1 come back in frames t+1..t+{RETURN_AFTER}?): the step's own "
        "unexplained share, the smallest unexplained share of t-1 against t+k, the step's own informative detail "
        "share, the largest of t-1 against t+k; a flash should come back (low, high), a cut should not; min/median/max"
    )
    for kind, rows in classes.items():
        if not rows:
            continue
        cols = [np.array([r[k] for r in rows], float) for k in (4, 5, 6, 7)]
        cols = [c[np.isfinite(c)] for c in cols]
        text = ", ".join(
            f"{name} {c.min():.2f}/{np.median(c):.2f}/{c.max():.2f}" if len(c) else f"{name} -"
            for name, c in zip(("step unexplained", "return unexplained", "step detail", "return detail"), cols)
        )
        print(
            f"  {kind}: {len(rows)} steps, {text}; return unexplained <= 0.12: {int(np.sum(cols[1] <= 0.12))}, "
            f"return detail >= 0.3: {int(np.sum(cols[3] >= 0.3))}"
        )
        shown = [r for r in rows if not r[3]] if kind == "inserted cut" else rows  # the cuts: those missed
        if kind in ("inserted cut", "painted flash", "false detection") and shown:
            label = "missed by the configured thresholds: " if kind == "inserted cut" else ""
            print(
                "    "
                + label
                + ", ".join(
                    f"{n} {i} (score {sc:.2f}: {a:.2f}, {b:.2f}, {c:.2f}, {d:.2f} at +{k})"
                    for n, i, sc, _, a, b, c, d, k in shown
                )
            )


def ui_rates(videos: list[dict], hud: list[dict]) -> dict:
    """Windows the UI screen flags (coverage over `max_ui_coverage`): of the HUD windows, of those
    whose true coverage is over the limit (the ones the rule exists to reject; a HUD under it in
    truth passes by design), of those under it, and of the clean continuous windows."""
    limit = QualityThresholds().max_ui_coverage
    clean = [w for v in videos if v["kind"] == "continuous" for w in v["windows"] if w["status"] == "ok"]
    hud_windows = [w for v in hud for w in v["windows"] if w["status"] == "ok"]
    over = [w for w in hud_windows if w["true_coverage"] > limit]
    under = [w for w in hud_windows if w["true_coverage"] <= limit]

    def flagged(windows: list[dict]) -> tuple[int, int]:
        return int(sum(w["ui_coverage"] > limit for w in windows)), len(windows)

    return {
        "hud": flagged(hud_windows),
        "truly_over": flagged(over),
        "truly_under": flagged(under),
        "clean": flagged(clean),
        "true_coverage": [round(w["true_coverage"], 4) for w in hud_windows],
        "coverage": [round(w["ui_coverage"], 4) for w in hud_windows],
    }


def all_checks_keep(videos: list[dict]) -> tuple[int, int]:
    """(continuous clean windows that every quality check keeps, cuts and shake aside; all of them)."""
    q = QualityThresholds()
    kept = [
        not [c for c in quality_reasons({**w, "shake": 0.0}, q, min(w["width"], w["height"]), w["fps"])]
        for v in videos
        if v["kind"] == "continuous"
        for w in v["windows"]
        if w["status"] == "ok"
    ]
    return int(sum(kept)), len(kept)


_HEADER = (
    "| {}: detector | cut recall | cut precision (detections at in-game jumps) | clean windows kept (cut, shake) "
    "| flashed clean windows kept | in-game jump windows flagged | shake caught |\n"
    "| --- | --- | --- | --- | --- | --- | --- |"
)


def _row(name: str, r: dict) -> str:
    shake = f"{r['shake_caught']}/{r['shaky_windows']}" if "shake_caught" in r else "–"
    flash = f"{r['flash_kept']}/{r['flash_windows']}" if "flash_kept" in r else "–"
    judged = r["detected"] - r["at_jump"]
    return (
        f"| {name} | {r['cuts_found']}/{r['cuts']} ({r['cut_recall']:.0%}) | {r['true_detected']}/{judged} "
        f"({r['cut_precision']:.0%}) (+{r['at_jump']}) | {r['clean_kept']}/{r['clean_windows']} ({r['clean_keep']:.0%}) "
        f"| {flash} | {r['jump_flagged']}/{r['jump_windows']} | {shake} |"
    )


def splits(games: dict[str, list[str]]) -> tuple[dict[str, list[str]], str]:
    """The groups thresholds are chosen on and reported on: the games when there are two or
    more; with one game, its IWADs (other maps and textures), else its demos, in two halves."""
    if len(games) >= 2:
        return games, "by game"
    game, clips = next(iter(games.items()))
    iwads = sorted({demo_of(c).split("-")[0] for c in clips})
    key = (lambda c: demo_of(c).split("-")[0]) if len(iwads) > 1 else demo_of
    names = sorted({key(c) for c in clips})
    groups = {f"{game}:{'+'.join(half)}": [c for c in clips if key(c) in half] for half in (names[::2], names[1::2])}
    unit = "IWAD (different maps and textures)" if len(iwads) > 1 else "demo"
    return groups, f"by {unit} within ONE game ({game}): out of sample by {unit}, not by game"


def report(choose_on: str, videos: list[dict], hud: list[dict]) -> dict:
    """Choose on one group, print the figures on every other group; returns them for the JSON."""
    chosen_on = [v for v in videos if v["game"] == choose_on]
    cut_t, max_shake = choose(chosen_on)
    print(f"\n## chosen on {choose_on}: {cut_t}, max_shake={max_shake}")
    print(_HEADER.format("held-out group"))
    out = {"chosen": cut_t.__dict__, "max_shake": max_shake, "held_out": {}}
    for group in sorted({v["game"] for v in videos} - {choose_on}):
        mine = [v for v in videos if v["game"] == group]
        r = evaluate(mine, cut_t, max_shake)
        print(_row(f"{group}: g2w chosen on {choose_on}", r))
        out["held_out"][group] = r
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--workdir", default="/tmp/g2w_real_cal")
    parser.add_argument(
        "--choose",
        action="append",
        default=None,
        metavar="GROUP",
        help="choose the thresholds on this group only (repeatable); default: each group in turn",
    )
    parser.add_argument("--no-peers", action="store_true", help="skip PySceneDetect (two more decodes per video)")
    parser.add_argument(
        "--cached-only",
        action="store_true",
        help="report on the videos already measured in the workdir only (counts say how many)",
    )
    parser.add_argument("--labels", default=LABELS, help="in-game jump labels (JSON; '' for none): default %(default)s")
    parser.add_argument(
        "--persistence",
        action="store_true",
        help="also print the persistence cue (does the picture come back after a step?)",
    )
    parser.add_argument(
        "--transience",
        action="store_true",
        help=f"also print the transience cue (does the view before a step come back within {RETURN_AFTER} frames?)",
    )
    parser.add_argument("--reverse", action="store_true", help=argparse.SUPPRESS)  # every direction runs now
    args = parser.parse_args()
    games = clean_clips(args.corpus)
    if not games:
        raise SystemExit(f"no clean clips (clean/*.mp4) under {args.corpus}")
    groups, split = splits(games)
    built = build(groups, args.workdir)
    clip_group = {c: g for g, clips in groups.items() for c in clips}
    hud = []
    for path in hud_clips(args.corpus):
        clean = os.path.join(
            os.path.dirname(os.path.dirname(os.path.dirname(path))),
            "clean",
            os.path.basename(os.path.dirname(path)) + ".mp4",
        )
        hud.append(
            {"path": path, "game": clip_group.get(clean, "unpaired"), "kind": "hud", "cuts": [], "shaky_from": None}
        )
    if args.cached_only:
        done = [v for v in built + hud if os.path.exists(cache_path(v, args.workdir))]
        built, hud = [v for v in done if v["kind"] != "hud"], [v for v in done if v["kind"] == "hud"]
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:  # HUD first: a partial run has both screens
        measured = list(
            pool.map(signals_of, hud + built, itertools.repeat(args.workdir), itertools.repeat(not args.no_peers))
        )
    hud, videos = measured[: len(hud)], [with_cues(v) for v in measured[len(hud) :]]
    for warning in attach_jumps(videos, load_labels(args.labels)):
        print("WARNING:", warning)
    names = sorted({v["game"] for v in videos})  # with --cached-only, the groups measured so far
    print(f"split {split}: groups {names}")
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        kinds = {k: sum(v["kind"] == k for v in mine) for k in ("continuous", "concatenated", "jittered", "flashed")}
        print(
            f"  {g}: {kinds['continuous']} clean clips, {kinds['concatenated']} concatenations, "
            f"{kinds['jittered']} jittered, {kinds['flashed']} flashed, {sum(v['game'] == g for v in hud)} HUD versions; labelled in-game "
            f"jumps in {sum(bool(v['jumps']) for v in mine if v['kind'] == 'continuous')} clips"
        )
    results = {"split": split, "directions": {}}
    for choose_on in args.choose or names:
        if choose_on not in groups:
            raise SystemExit(f"--choose {choose_on}: not one of {names}")
        results["directions"][choose_on] = report(choose_on, videos, hud)
    print(
        f"\n## every group, no choosing: configured {CutThresholds()}, max_shake={QualityThresholds().max_shake}, "
        "and the peers at their defaults"
    )
    print(_HEADER.format("group"))
    results["configured"], results["ui"] = {}, {"screen": configured_screen()}
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        r = evaluate(mine, CutThresholds(), QualityThresholds().max_shake)
        results["configured"][g] = r
        print(_row(f"{g}: g2w configured", r))
        for name in ("scenedetect-adaptive", "scenedetect-content"):
            if any(name in v["peers"] for v in mine):
                print(_row(f"{g}: {name} (defaults)", peer_scores(mine, name)))
    results["standout"] = standout_directions(videos, names)
    results["return"] = veto_directions(videos, names, "veto_return", _VETO_RETURN, "return veto")
    results["run"] = veto_directions(videos, names, "veto_run", _VETO_RUN, "run veto")
    print("\ncontinuous clips (as captured) that the configured thresholds reject, to look at by eye:")
    for v in videos:
        if v["kind"] != "continuous":
            continue
        scores = scores_of(v, CutThresholds())
        for w in plan_windows(duration_of(v), WINDOW_S):
            m = cut_and_shake(v["times"], scores, v["shift"], w.start_s, w.end_s)
            if m["cut_count"] or m["shake"] > QualityThresholds().max_shake:
                frames = [int(np.argmin(np.abs(v["times"] - t))) for t in m["cut_times"]]
                jump = " (holds a labelled in-game jump)" if jump_inside(v["jumps"], w.start_s, w.end_s) else ""
                print(
                    f"  {os.path.basename(v['path'])} [{w.start_s:g}, {w.end_s:g}) s: cuts at frames {frames}, "
                    f"shake {m['shake']:.2f}{jump}"
                )
    local_cue_report(videos)
    run_report(videos)
    if args.persistence:
        persistence_report(videos)
    if args.transience:
        transience_report(videos)
    screen = configured_screen()
    limit = QualityThresholds().max_ui_coverage
    print(
        f"\n| group | UI screen ({screen}, the default): real HUD windows flagged | of them truly over "
        f"{limit:g} (mask.mkv) | truly under it | clean windows flagged | true / screened HUD coverage, "
        "min-max | continuous clean windows kept by every quality check |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for g in names:
        ui = ui_rates([v for v in videos if v["game"] == g], [v for v in hud if v["game"] == g])
        kept, kept_n = all_checks_keep([v for v in videos if v["game"] == g])
        results["ui"][g] = {**ui, "all_checks_kept": kept, "all_checks_windows": kept_n}
        cells = [f"{a}/{n}" if n else "–" for a, n in (ui["hud"], ui["truly_over"], ui["truly_under"])]
        spread = (
            f"{min(ui['true_coverage']):.3f}-{max(ui['true_coverage']):.3f} / "
            f"{min(ui['coverage']):.3f}-{max(ui['coverage']):.3f}"
            if ui["coverage"]
            else "– (unpaired game)"
        )
        print(
            f"| {g} | {' | '.join(cells)} | {ui['clean'][0]}/{ui['clean'][1]} | {spread} | "
            f"{kept}/{kept_n} ({kept / max(kept_n, 1):.0%}) |"
        )
    peer = sum(v["peers"]["scenedetect-adaptive"][1] for v in videos if "scenedetect-adaptive" in v["peers"])
    ours = sum(v["ours_s"] for v in videos if "scenedetect-adaptive" in v["peers"])  # the same files
    print(
        f"\ntime: g2w cues {ours:.1f} s (thumbnails from the Y plane) vs scenedetect-adaptive {peer:.1f} s "
        f"(its own decode and HSV conversion of full frames): not like-for-like, one thread each"
    )
    print(json.dumps(results, default=float))


if __name__ == "__main__":
    main()
