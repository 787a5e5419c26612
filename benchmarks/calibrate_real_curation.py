"""Choose the cut and shake thresholds on real game footage and report them out of sample.

Input: the real corpus `make capture` writes (e.g. /work/real_corpus): clean clips (no HUD) as
`clean/<clip_id>.mp4` and paired cases as `cases/<clip_id>/` with `hud.mp4` (the game's own HUD)
and `meta.json` (which game); a corpus may also hold one such folder per game. From the clean
clips the script builds footage whose truth is known by construction:
- continuous: each clean clip as captured, one demo segment, so every window is clean;
- concatenated: parts of three clips of the same game back to back, so the cuts are
  known, some inside a window and some exactly on a window boundary (then neither window
  contains the cut and both must stay clean);
- jittered: a clean clip moved by a random per-frame translation (1.5 % of the width, like a
  handheld jolt), so its windows are known shake.
Every built video is decoded once into the per-frame cues the curation job uses
(`FrameSignals`, cached in the workdir). Thresholds are chosen on one group and reported on
each of the others, every group in turn (`--choose GROUP` limits the directions): the groups
are the games when the corpus has two or more (the game comes from the capture manifest, so
unpaired games such as cube2 count too), else the IWADs or demos of its one game (said plainly
in the output). The structural path (frames that share nothing, standing out on each side) is set
by a midpoint rule on the choose split: its difference threshold halfway between the largest
difference of a non-cut step that stands out and the level of unrelated frames (thumbnails of
different clips), its ratio halfway between the largest such ratio of a decorrelated non-cut
step and the smallest ratio at a known cut. The other thresholds come from a grid search. Printed side by
side on the same videos: PySceneDetect's adaptive and content detectors at their defaults, and
the UI screen on clean clips and on the HUD versions of the same moments.

Usage: python benchmarks/calibrate_real_curation.py /work/real_corpus [--workdir /tmp/g2w_real_cal] [--choose GAME]
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
from g2w.curate.config import QualityThresholds
from g2w.curate.cuts import CutThresholds, FrameSignals, cut_scores, luma_thumb, motion_compensated_difference, side_means
from g2w.curate.quality import quality_reasons
from g2w.curate.windows import plan_windows
from g2w.sources import probe_row
from g2w.video.decode import iter_video_frames
from g2w.video.encode import VideoWriter

WINDOW_S = 5.0
JITTER = 0.015  # per-frame jitter, fraction of the width
MATCH_S = 0.1  # a detected cut this close to an inserted one found it
UNRELATED_EVERY = 15  # frames between the thumbnails kept to measure unrelated-frame differences


@functools.lru_cache(maxsize=None)
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
        yield t, rgb if size is None or rgb.shape[1::-1] == size else cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)


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
            writer.write(cv2.warpAffine(rgb, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REFLECT))


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
                videos.append({"path": os.path.join(workdir, f"{game}_concat_{clip_id}.mp4"), "game": game,
                               "kind": "concatenated", "cuts": None, "shaky_from": None, "recipe": parts})
            if i % 2 == 0:
                videos.append({"path": os.path.join(workdir, f"{game}_jitter_{clip_id}.mp4"), "game": game,
                               "kind": "jittered", "cuts": [], "shaky_from": 0.0,
                               "recipe": [clip, zlib.crc32(clip_id.encode())]})
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
    elif video["kind"] == "jittered" and not os.path.exists(out):
        write_jitter(recipe[0], part, recipe[1])
        os.replace(part, out)
    return video


def cache_path(video: dict, workdir: str) -> str:
    return os.path.join(workdir, "signals", os.path.basename(os.path.dirname(video["path"])) + "_"
                        + os.path.basename(video["path"]) + ".pkl")


def signals_of(video: dict, workdir: str, peers: bool = True) -> dict:
    """Per-frame cues of one built video (the curation job's own code), the sampled-frame
    quality measures of its windows, and PySceneDetect's cuts on the same file; cached."""
    video = make(video)
    cache = cache_path(video, workdir)
    if os.path.exists(cache) and os.path.getmtime(cache) > os.path.getmtime(video["path"]):
        return {**pickle.load(open(cache, "rb")), **video}
    measured = _measure(video, peers)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    pickle.dump(measured, open(cache, "wb"))
    return measured


def _measure(video: dict, peers: bool = True) -> dict:
    """Only what the figures read: cut and shake cues for every built video, the peers where
    cuts are judged (continuous and concatenated), the job's window analysis (quality, UI
    screen) for the clips as captured, with or without their HUD."""
    from scenedetect import AdaptiveDetector, ContentDetector, detect

    out = {**video, "ours_s": 0.0, "peers": {}, "thumbs": [], "windows": []}
    if video["kind"] != "hud":
        s = FrameSignals()
        start = time.perf_counter()
        for k, (_, t, frame) in enumerate(iter_video_frames(video["path"], threads=1)):
            thumb = luma_thumb(frame)
            s.add(t, thumb)
            if k % UNRELATED_EVERY == 0:
                out["thumbs"].append(thumb.pixels)
        out.update(ours_s=time.perf_counter() - start, times=np.array(s.times), difference=np.array(s.difference),
                   histogram=np.array(s.histogram), flat=np.array(s.flat, bool), shift=np.array(s.shift).reshape(-1, 2))
    if peers and video["kind"] in ("continuous", "concatenated"):
        for name, detector in (("scenedetect-adaptive", AdaptiveDetector), ("scenedetect-content", ContentDetector)):
            start = time.perf_counter()
            scenes = detect(video["path"], detector())
            out["peers"][name] = ([sc[0].seconds for sc in scenes[1:]], time.perf_counter() - start)
    if video["kind"] in ("continuous", "hud"):
        rows = AnalyzeWindows().analyze_source(probe_row(video["path"]))
        out["windows"] = [{k: r[k] for k in ("start_s", "end_s", "status", "luma_mean", "dark_fraction",
                                             "bright_fraction", "sharpness", "frozen_fraction", "border_fraction",
                                             "ui_coverage", "width", "height", "fps")} for r in rows]
    return out


def duration_of(v: dict) -> float:
    """Last frame's start plus one frame interval."""
    return float(v["times"][-1] + np.median(np.diff(v["times"])))


def _inside(t: float, start: float, end: float) -> bool:
    return start + 1e-3 < t < end - 1e-3


def evaluate(videos: list[dict], cut_t: CutThresholds, max_shake: float) -> dict:
    """Cut recall and precision (cut events), clean-window keep rate and shake detection."""
    found = inserted = detected = true_detected = 0
    clean = clean_kept = shaky = shaky_caught = 0
    for v in videos:
        scores = cut_scores(v["difference"], v["histogram"], v["flat"], cut_t)
        hits = v["times"][scores >= 1.0]
        detected += len(hits)
        true_detected += sum(any(abs(h - c) <= MATCH_S for c in v["cuts"]) for h in hits)
        inserted += len(v["cuts"])
        found += sum(any(abs(h - c) <= MATCH_S for h in hits) for c in v["cuts"])
        for w in plan_windows(duration_of(v), WINDOW_S):
            m = cut_and_shake(v["times"], scores, v["shift"], w.start_s, w.end_s)
            has_cut = any(_inside(c, w.start_s, w.end_s) for c in v["cuts"])
            is_shaky = v["shaky_from"] is not None and w.start_s + 1e-3 >= v["shaky_from"]
            if is_shaky:
                shaky += 1
                shaky_caught += m["shake"] > max_shake
            elif not has_cut:
                clean += 1
                clean_kept += m["cut_count"] == 0 and m["shake"] <= max_shake
    return {"cut_recall": found / max(inserted, 1), "cut_precision": true_detected / max(detected, 1),
            "cuts": inserted, "cuts_found": found, "detected": detected, "true_detected": true_detected,
            "clean_keep": clean_kept / max(clean, 1), "clean_windows": clean, "clean_kept": int(clean_kept),
            "shake_recall": shaky_caught / max(shaky, 1), "shaky_windows": shaky, "shake_caught": int(shaky_caught)}


def peer_scores(videos: list[dict], name: str) -> dict:
    found = inserted = detected = true_detected = clean = clean_kept = 0
    for v in videos:
        if name not in v["peers"]:  # jittered: no cut is judged there
            continue
        hits = v["peers"][name][0]
        detected += len(hits)
        true_detected += sum(any(abs(h - c) <= MATCH_S for c in v["cuts"]) for h in hits)
        inserted += len(v["cuts"])
        found += sum(any(abs(h - c) <= MATCH_S for h in hits) for c in v["cuts"])
        for w in plan_windows(duration_of(v), WINDOW_S):
            if v["shaky_from"] is None and not any(_inside(c, w.start_s, w.end_s) for c in v["cuts"]):
                clean += 1
                clean_kept += not any(_inside(h, w.start_s, w.end_s) for h in hits)
    return {"cut_recall": found / max(inserted, 1), "cut_precision": true_detected / max(detected, 1),
            "cuts": inserted, "cuts_found": found, "detected": detected, "true_detected": true_detected,
            "clean_keep": clean_kept / max(clean, 1), "clean_windows": clean, "clean_kept": clean_kept}


def unrelated_level(videos: list[dict]) -> float:
    """Median motion-compensated difference between thumbnails of different continuous clips,
    taken at the same offsets: what "sharing nothing" looks like in this footage."""
    clips = [v["thumbs"] for v in videos if v["kind"] == "continuous"]
    return float(np.median([motion_compensated_difference(a[k], b[k])[0] for a, b in itertools.permutations(clips, 2)
                            for k in range(min(len(a), len(b)))]))


def structural_thresholds(videos: list[dict], neighbours: int) -> tuple[float, float]:
    """(decorrelated, ratio_decorrelated) by the midpoint rule in the module docstring,
    iterated until it settles."""
    cut_r, other_d, other_r = [], [], []
    for v in videos:
        d = v["difference"]
        sided = d / np.maximum(np.maximum(*side_means(d, neighbours)), 0.01)
        at_cut = np.zeros(len(d), bool)
        for c in v["cuts"]:
            at_cut[int(np.argmin(np.abs(v["times"] - c)))] = True
        real = ~v["flat"]
        cut_r += list(sided[at_cut & real])
        other_d += list(d[~at_cut & real])
        other_r += list(sided[~at_cut & real])
    cut_r, other_d, other_r = np.array(cut_r), np.array(other_d), np.array(other_r)
    unrelated, ratio = unrelated_level(videos), float(cut_r.min())
    for _ in range(20):
        level = (other_d[other_r >= ratio].max(initial=0.0) + unrelated) / 2
        ratio = (other_r[other_d >= level].max(initial=1.0) + cut_r.min()) / 2
    return round(float(level), 3), round(float(ratio), 3)


def choose(videos: list[dict]) -> tuple[CutThresholds, float]:
    """The structural path by its midpoint rule, then the grid point that finds every inserted
    cut and keeps the most clean windows, then catches the most shake; ties go to the
    defaults' side (listed first)."""
    level, ratio = structural_thresholds(videos, CutThresholds().neighbours)
    base = replace(CutThresholds(), decorrelated=level, ratio_decorrelated=ratio)
    grid = itertools.product((base.floor, 0.2, 0.4), (base.ratio, 2.0, 3.0, 4.0), (base.histogram, 0.1, 0.25),
                             (base.ratio_alone, 5.0, 12.0))
    best = None
    for floor, ratio, hist, alone in grid:
        t = replace(base, floor=floor, ratio=ratio, histogram=hist, ratio_alone=alone)
        r = evaluate(videos, t, QualityThresholds().max_shake)
        key = (r["cut_recall"], r["clean_keep"], r["cut_precision"])
        if best is None or key > best[0]:
            best = (key, t)
    cut_t = best[1]
    shakes = [(evaluate(videos, cut_t, s), s) for s in (QualityThresholds().max_shake, 0.1, 0.15, 0.2, 0.3, 0.4)]
    max_shake = max(shakes, key=lambda x: (x[0]["clean_keep"], x[0]["shake_recall"]))[1]
    return cut_t, max_shake


def ui_rates(videos: list[dict], hud: list[dict]) -> tuple[tuple[int, int], tuple[int, int]]:
    """((HUD windows the UI screen flags, HUD windows), (clean continuous windows it flags, clean windows))."""
    q = QualityThresholds()
    clean = [w for v in videos if v["kind"] == "continuous" for w in v["windows"] if w["status"] == "ok"]
    hud_windows = [w for v in hud for w in v["windows"] if w["status"] == "ok"]
    flagged = sum(w["ui_coverage"] > q.max_ui_coverage for w in hud_windows)
    false = sum(w["ui_coverage"] > q.max_ui_coverage for w in clean)
    return (int(flagged), len(hud_windows)), (int(false), len(clean))


def all_checks_keep(videos: list[dict]) -> tuple[int, int]:
    """(continuous clean windows that every quality check keeps, cuts and shake aside; all of them)."""
    q = QualityThresholds()
    kept = [not [c for c in quality_reasons({**w, "shake": 0.0}, q, min(w["width"], w["height"]), w["fps"])]
            for v in videos if v["kind"] == "continuous" for w in v["windows"] if w["status"] == "ok"]
    return int(sum(kept)), len(kept)


def _row(name: str, r: dict) -> str:
    shake = f"{r['shake_caught']}/{r['shaky_windows']}" if "shake_caught" in r else "–"
    return (f"| {name} | {r['cuts_found']}/{r['cuts']} ({r['cut_recall']:.0%}) | {r['true_detected']}/{r['detected']} "
            f"({r['cut_precision']:.0%}) | {r['clean_kept']}/{r['clean_windows']} ({r['clean_keep']:.0%}) | {shake} |")


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
    print("| held-out group: detector | cut recall | cut precision | clean windows kept (cut, shake) | shake caught |")
    print("| --- | --- | --- | --- | --- |")
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
    parser.add_argument("--choose", action="append", default=None, metavar="GROUP",
                        help="choose the thresholds on this group only (repeatable); default: each group in turn")
    parser.add_argument("--no-peers", action="store_true", help="skip PySceneDetect (two more decodes per video)")
    parser.add_argument("--cached-only", action="store_true",
                        help="report on the videos already measured in the workdir only (counts say how many)")
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
        clean = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(path))), "clean",
                             os.path.basename(os.path.dirname(path)) + ".mp4")
        hud.append({"path": path, "game": clip_group.get(clean, "unpaired"), "kind": "hud", "cuts": [],
                    "shaky_from": None})
    if args.cached_only:
        done = [v for v in built + hud if os.path.exists(cache_path(v, args.workdir))]
        built, hud = [v for v in done if v["kind"] != "hud"], [v for v in done if v["kind"] == "hud"]
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:  # HUD first: a partial run has both screens
        measured = list(pool.map(signals_of, hud + built, itertools.repeat(args.workdir),
                                 itertools.repeat(not args.no_peers)))
    hud, videos = measured[: len(hud)], measured[len(hud):]
    names = sorted({v["game"] for v in videos})  # with --cached-only, the groups measured so far
    print(f"split {split}: groups {names}")
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        kinds = {k: sum(v["kind"] == k for v in mine) for k in ("continuous", "concatenated", "jittered")}
        print(f"  {g}: {kinds['continuous']} clean clips, {kinds['concatenated']} concatenations, "
              f"{kinds['jittered']} jittered, {sum(v['game'] == g for v in hud)} HUD versions")
    results = {"split": split, "directions": {}}
    for choose_on in args.choose or names:
        if choose_on not in groups:
            raise SystemExit(f"--choose {choose_on}: not one of {names}")
        results["directions"][choose_on] = report(choose_on, videos, hud)
    print(f"\n## every group, no choosing: configured {CutThresholds()}, max_shake={QualityThresholds().max_shake}, "
          "and the peers at their defaults")
    print("| group: detector | cut recall | cut precision | clean windows kept (cut, shake) | shake caught |")
    print("| --- | --- | --- | --- | --- |")
    results["configured"], results["ui"] = {}, {}
    for g in names:
        mine = [v for v in videos if v["game"] == g]
        r = evaluate(mine, CutThresholds(), QualityThresholds().max_shake)
        results["configured"][g] = r
        print(_row(f"{g}: g2w configured", r))
        for name in ("scenedetect-adaptive", "scenedetect-content"):
            if any(name in v["peers"] for v in mine):
                print(_row(f"{g}: {name} (defaults)", peer_scores(mine, name)))
    print("\ncontinuous clips (as captured) that the configured thresholds reject, to look at by eye:")
    for v in videos:
        if v["kind"] != "continuous":
            continue
        scores = cut_scores(v["difference"], v["histogram"], v["flat"], CutThresholds())
        for w in plan_windows(duration_of(v), WINDOW_S):
            m = cut_and_shake(v["times"], scores, v["shift"], w.start_s, w.end_s)
            if m["cut_count"] or m["shake"] > QualityThresholds().max_shake:
                frames = [int(np.argmin(np.abs(v["times"] - t))) for t in m["cut_times"]]
                print(f"  {os.path.basename(v['path'])} [{w.start_s:g}, {w.end_s:g}) s: cuts at frames {frames}, "
                      f"shake {m['shake']:.2f}")
    print("\n| group | UI screen: real HUD windows flagged | clean windows flagged | continuous clean windows kept "
          "by every quality check |")
    print("| --- | --- | --- | --- |")
    for g in names:
        (flagged, hud_n), (false, clean_n) = ui_rates([v for v in videos if v["game"] == g],
                                                      [v for v in hud if v["game"] == g])
        kept, kept_n = all_checks_keep([v for v in videos if v["game"] == g])
        results["ui"][g] = {"hud_flagged": flagged, "hud_windows": hud_n, "clean_flagged": false,
                            "clean_windows": clean_n, "all_checks_kept": kept, "all_checks_windows": kept_n}
        hud_txt = f"{flagged}/{hud_n} ({flagged / hud_n:.0%})" if hud_n else "– (no HUD footage: unpaired game)"
        print(f"| {g} | {hud_txt} | {false}/{clean_n} | {kept}/{kept_n} ({kept / max(kept_n, 1):.0%}) |")
    peer = sum(v["peers"]["scenedetect-adaptive"][1] for v in videos if "scenedetect-adaptive" in v["peers"])
    ours = sum(v["ours_s"] for v in videos if "scenedetect-adaptive" in v["peers"])  # the same files
    print(f"\ntime: g2w cues {ours:.1f} s (thumbnails from the Y plane) vs scenedetect-adaptive {peer:.1f} s "
          f"(its own decode and HSV conversion of full frames): not like-for-like, one thread each")
    print(json.dumps(results, default=float))


if __name__ == "__main__":
    main()
