"""CPU cost of every curation and synthesis stage on real footage, as a profile `g2w plan` reads.

Each stage runs through the job's own step or function (probe, `AnalyzeWindows`,
`EmbedCentralFrames`, `WriteShards` + `select_table`, `StandardizeClips`, `SynthesizeSamples`)
in this one process, without Ray, so process CPU time (every thread, `time.process_time`) is
the stage's cost alone. The analysis front end is also split into its parts by running its
per-frame calls in the same order it does (decode, cut cues, quality/UI/borders samples, the
centre crop) and timing each one; the whole `AnalyzeWindows` pass is measured too, so the parts
can be checked against it. CLIP runs here on the CPU (random initial weights: the compute is the
pretrained model's); the GPU rates stay "not measured" unless a GPU machine measured them.
Rates are CPU seconds per second of source video (and per clip, per window, per sample), with
bytes per clip in and out, written as JSON (the profile) and a Markdown page.

Usage: python benchmarks/stage_costs.py --corpus CAPTURE_OUTPUT [--profile P.json] [--results R.md]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import subprocess
import tempfile
import time
from datetime import UTC, datetime

import numpy as np

from g2w.curate.analyze import CROP_SIZE, AnalyzeWindows, analysis_size, center_crop
from g2w.curate.borders import border_bars
from g2w.curate.config import CurateConfig
from g2w.curate.cut_modes import frame_cut_scores
from g2w.curate.cuts import CutThresholds, FrameSignals, luma_thumb
from g2w.curate.embed import EmbedCentralFrames
from g2w.curate.quality import QualityAccumulator
from g2w.curate.select import local_kmeans, select_table
from g2w.curate.standardize import StandardizeClips
from g2w.curate.ui_screen import make_ui_screen
from g2w.curate.work_shards import WriteShards, read_shards
from g2w.models.clip_embedder import ClipSpec
from g2w.video.decode import iter_video_frames, luma
from g2w.video.sources import ProbeSources

GPU_STAGES = ("clip_embed_gpu", "kmeans_gpu", "synthesis_composite_gpu")


def _cpu() -> float:
    return time.process_time()


def _sources(corpus: str) -> list[str]:
    """The clean clips of a `g2w capture` output (or the videos of any folder)."""
    paths = sorted(glob.glob(os.path.join(corpus, "clean", "*.mp4"))) or sorted(
        glob.glob(os.path.join(corpus, "*.mp4"))
    )
    if not paths:
        raise SystemExit(f"no .mp4 under {corpus} or {corpus}/clean")
    return paths


def _row(batch: dict, i: int) -> dict:
    return {k: np.asarray(v)[i : i + 1] for k, v in batch.items()}


def front_end_parts(path: str, short_side: int, analysis_fps: float) -> dict:
    """CPU seconds of decode, cut cues, quality samples and the centre crops for one source,
    each call timed where `AnalyzeWindows` makes it."""
    parts = dict.fromkeys(("decode", "cuts", "quality", "crop"), 0.0)
    signals, ui, quality = FrameSignals(CutThresholds()), make_ui_screen("static-edges"), QualityAccumulator()
    ui.start_window()
    frames = iter_video_frames(path, threads=1)
    next_sample, next_crop, size = 0.0, 2.5, None
    while True:
        t0 = _cpu()
        try:
            _, t, frame = next(frames)
        except StopIteration:
            parts["decode"] += _cpu() - t0
            break
        t1 = _cpu()
        signals.add(t, luma_thumb(frame))
        t2 = _cpu()
        parts["decode"] += t1 - t0
        parts["cuts"] += t2 - t1
        if size is None:
            size = analysis_size(frame.width, frame.height, short_side)
        if t + 1e-3 >= next_sample:
            gray = luma(frame, *size)
            quality.add(gray)
            ui.add(gray, None)
            border_bars(gray)
            next_sample = t + 1.0 / analysis_fps - 1e-3
        t3 = _cpu()
        parts["quality"] += t3 - t2
        if t + 1e-3 >= next_crop:
            center_crop(frame, CROP_SIZE, 0)
            next_crop += 5.0
        parts["crop"] += _cpu() - t3
    t0 = _cpu()
    frame_cut_scores("rules", signals, None, CutThresholds(), 0.5)
    ui.coverages()
    parts["cuts"] += _cpu() - t0
    return parts


def measure(corpus: str, work: str, synth_samples: int, clip_model: str) -> dict:
    paths = _sources(corpus)
    cfg = CurateConfig(ui_detector="static-edges")
    stages: dict[str, dict] = {}

    def record(name: str, cpu_s: float, unit_count: float, unit: str, source_s: float, note: str = "") -> None:
        stages[name] = {
            "cpu_s": round(cpu_s, 3),
            "cpu_s_per_source_s": round(cpu_s / source_s, 5) if source_s else None,
            f"cpu_s_per_{unit}": round(cpu_s / unit_count, 5) if unit_count else None,
            "device": "cpu",
            **({"note": note} if note else {}),
        }

    t0 = _cpu()
    probed = ProbeSources()({"path": np.array(paths)})
    probe_s = _cpu() - t0
    ok = np.flatnonzero(np.asarray(probed["status"]) == "ok")
    duration = float(np.asarray(probed["duration_s"], float)[ok].sum())
    record("probe", probe_s, len(paths), "source", duration)

    parts = dict.fromkeys(("decode", "cuts", "quality", "crop"), 0.0)
    for i in ok:
        for k, v in front_end_parts(paths[i], cfg.analysis_short_side, cfg.analysis_fps).items():
            parts[k] += v
    record("decode", parts["decode"], len(ok), "source", duration, "every frame, one thread")
    record("cut_detection", parts["cuts"], len(ok), "source", duration, "rules: luma thumbnails + cut scores")
    record(
        "quality_analysis", parts["quality"], len(ok), "source", duration, "8 fps samples: quality, UI screen, borders"
    )
    record("centre_crop", parts["crop"], len(ok), "source", duration, "one 224 crop per window")

    analyze = AnalyzeWindows(cfg.window_s, cfg.analysis_fps, cfg.analysis_short_side, "static-edges", cfg.quality)
    batches = []
    t0 = _cpu()
    for i in ok:
        batches.append(analyze(_row(probed, i)))
    analyse_s = _cpu() - t0
    windows = sum(len(b["clip_id"]) for b in batches)
    record(
        "analyse_total",
        analyse_s,
        windows,
        "window",
        duration,
        "the whole AnalyzeWindows pass (decode+cuts+quality+crop)",
    )

    embedded = []
    for name, spec in (("embed_appearance", None), ("clip_embed_cpu", ClipSpec(clip_model, None, "cpu", 0))):
        step = EmbedCentralFrames(spec, cfg.embed_batch_size)
        t0 = _cpu()
        step.setup()
        setup_s = _cpu() - t0
        t0 = _cpu()
        out = [step(dict(b)) for b in batches]
        record(name, _cpu() - t0, windows, "window", duration, f"model load {setup_s:.1f} CPU s not counted")
        if spec is None:
            embedded = out
    stages["clip_embed_cpu"]["note"] += f"; {clip_model}, random initial weights, on CPU"

    shard_dir = os.path.join(work, "shards")
    t0 = _cpu()
    for b in embedded:
        WriteShards(shard_dir)(b)
    table = read_shards(shard_dir)
    manifest, _ = select_table(table, cfg, local_kmeans(cfg, "cpu"))
    record("dedup_select", _cpu() - t0, windows, "window", duration, "shards written and read, checks, k-means, dedup")

    status = manifest.column("status").to_numpy(zero_copy_only=False)
    verdicts = {str(k): int(v) for k, v in zip(*np.unique(status, return_counts=True))}
    # every analysed window is encoded, whatever selection said of it: encoding costs the same
    # per clip, and a dozen windows are too few for selection's verdicts to stand for a corpus
    analysed = table.column("status").to_numpy(zero_copy_only=False) == "ok"
    kept = table.take(np.flatnonzero(analysed))
    cols = ("clip_id", "source", "start_s", "width", "height", "fps", "rotation")
    kept_batch = {c: kept.column(c).to_numpy(zero_copy_only=False) for c in cols}
    clip_dir = os.path.join(work, "clips")
    os.makedirs(clip_dir, exist_ok=True)
    std = StandardizeClips(clip_dir, cfg.out_width, cfg.out_height, cfg.out_fps, cfg.window_s, cfg.crf, cfg.preset)
    t0 = _cpu()
    result = std(kept_batch)
    std_s = _cpu() - t0
    written = [p for p, s in zip(result["clip_path"], result["std_status"]) if s == "ok"]
    record("standardize_encode", std_s, len(written), "clip", len(written) * cfg.window_s, "decode + scale + x264")

    stages["synthesis_render"] = _synthesis(work, written, synth_samples, cfg.window_s)
    in_bytes = sum(os.path.getsize(paths[i]) for i in ok)
    out_bytes = sum(os.path.getsize(p) for p in written)
    for name in GPU_STAGES:
        stages[name] = {"device": "cuda", "rate": "not measured", "note": "no GPU machine was lent to this run"}
    return {
        "corpus": {
            "sources": len(paths),
            "readable": len(ok),
            "source_seconds": round(duration, 2),
            "resolution": f"{int(probed['width'][ok[0]])}x{int(probed['height'][ok[0]])}",
            "fps": float(probed["fps"][ok[0]]),
            "windows": windows,
            "selection": verdicts,
            "encoded": len(written),
        },
        "bytes": {
            "source_per_clip": round(in_bytes / max(1, len(written))),
            "source_per_source_s": round(in_bytes / duration),
            "clip_out_per_clip": round(out_bytes / max(1, len(written))),
            "sample_out_per_sample": stages["synthesis_render"].pop("bytes_per_sample"),
        },
        "window_s": cfg.window_s,
        "stages": stages,
    }


def _synthesis(work: str, clips: list[str], samples: int, window_s: float) -> dict:
    """CPU seconds per rendered sample (plan, composite on CPU, both encodes) over the clips."""
    from g2w.hud.bootstrap import bootstrap_library
    from g2w.jobs.synthesize import SynthesizeSamples

    lib = os.path.join(work, "library")
    bootstrap_library(lib, per_label=2, seed=0)
    out = os.path.join(work, "synth")
    step = SynthesizeSamples(lib, out, device="cpu")
    step.setup()
    picked = [clips[i % len(clips)] for i in range(samples)]
    batch = {
        "sample_id": np.array([f"s{i:03d}" for i in range(samples)]),
        "clip_id": np.array([os.path.splitext(os.path.basename(p))[0] for p in picked]),
        "clip_path": np.array(picked),
        "seed": np.arange(samples),
    }
    t0 = _cpu()
    rows = step(batch)
    cpu_s = _cpu() - t0
    done = int((np.asarray(rows["status"]) == "ok").sum())
    size = sum(os.path.getsize(f) for f in glob.glob(os.path.join(out, "samples", "*", "*")))
    return {
        "cpu_s": round(cpu_s, 3),
        "cpu_s_per_source_s": round(cpu_s / (done * window_s), 5) if done else None,
        "cpu_s_per_sample": round(cpu_s / done, 4) if done else None,
        "samples": done,
        "device": "cpu",
        "note": "render_sample: plan, layers, CPU compositing, clean + HUD encodes",
        "bytes_per_sample": round(size / max(1, done)),
    }


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def page(profile: dict) -> str:
    c, b, h = profile["corpus"], profile["bytes"], profile["header"]
    lines = [
        "# Stage costs on real footage",
        "",
        f"Command: `{h['command']}`  ",
        f"Commit: {h['commit']}  ",
        f"Machine: {h['machine']}  ",
        f"Date: {h['date']}",
        "",
        f"{c['readable']} of {c['sources']} captured sources ({c['resolution']} at {c['fps']:g} fps, "
        f"{c['source_seconds']:g} s in all), {c['windows']} windows (selection: {c['selection']}), {c['encoded']} encoded as clips. "
        "Every stage ran in one process through the job's own step; CPU time is the process's "
        "(all threads). The front-end parts are timed inside one decode loop; `analyse_total` is "
        "the whole `AnalyzeWindows` pass, which is what a cluster runs.",
        "",
        "| stage | device | CPU s | CPU s per source s | per unit | note |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, s in profile["stages"].items():
        if s.get("rate") == "not measured":
            lines.append(f"| {name} | {s['device']} | not measured | not measured | | {s['note']} |")
            continue
        unit = next(k for k in s if k.startswith("cpu_s_per_") and k != "cpu_s_per_source_s")
        lines.append(
            f"| {name} | CPU | {s['cpu_s']:.2f} | {s['cpu_s_per_source_s']:.4f} | "
            f"{s[unit]:.4f} {unit[len('cpu_s_per_') :]} | {s.get('note', '')} |"
        )
    lines += [
        "",
        f"Bytes: {b['source_per_clip']:,} of source per kept clip ({b['source_per_source_s']:,} per source second), "
        f"{b['clip_out_per_clip']:,} per standardized clip, {b['sample_out_per_sample']:,} per synthesized sample.",
        "",
        "These are short clips (one window each), so per-source fixed costs (opening, probing) weigh "
        "more than in hour-long sources; selection at scale is measured by `benchmarks/select_scale.py`.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="a `g2w capture` output folder (its clean/*.mp4) or a video folder")
    ap.add_argument("--profile", default="benchmarks/profiles/stage_costs.json")
    ap.add_argument("--results", default="docs/results/stage_costs.md")
    ap.add_argument("--synth-samples", type=int, default=4)
    ap.add_argument("--clip-model", default=CurateConfig().clip_model)
    ap.add_argument("--workdir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.workdir) as work:
        profile = measure(args.corpus, work, args.synth_samples, args.clip_model)
    argv = ["python", "benchmarks/stage_costs.py", "--corpus", "CORPUS", "--synth-samples", str(args.synth_samples)]
    profile = {
        "header": {
            "command": " ".join(argv),
            "commit": _commit(),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared with other jobs), Python {platform.python_version()}",
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        },
        **profile,
    }
    os.makedirs(os.path.dirname(args.profile) or ".", exist_ok=True)
    with open(args.profile, "w") as f:
        json.dump(profile, f, indent=2)
    with open(args.results, "w") as f:
        f.write(page(profile))
    print(page(profile))


if __name__ == "__main__":
    main()
