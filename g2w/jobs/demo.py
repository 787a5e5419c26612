"""The main job end to end on sample footage: what `make demo` runs.

1. sample gameplay videos with ground truth (`raw/`);
2. curation: probe, windows, quality and UI screen, CLIP, k-means, sampling, dedup,
   standardized 5 s 720p clips (`curated/`);
3. a procedural HUD asset library (`assets/`);
4. paired clean/HUD samples synthesized from the kept clips (`synth/`);
5. the removal baselines on those pairs (`removed/<method>/`), scored by the reference judge
   (`eval/<method>/`), next to the mask-free `propagate` remover (the learned segmenter finds
   the UI, flow-guided propagation fills it); the segmenter's detections are in `detect/`;
6. GameCleaner (tiny, random-initialised, a few CPU training steps): precache, Ray Train,
   removal and evaluation (`gamecleaner/`); its quality is not meaningful, only the path is.
Every stage writes its own summary and report; `report.html` here links them, with a contact
sheet of the raw footage. Each stage is resumable, so rerunning the demo reuses finished work.

The demo shows the path on a laptop's CPUs, so its inputs are as small as keeps every stage's
output meaningful: two synthesized pairs (each removal method's cost grows with its cases,
and the flow-guided ones are the slowest stages), GameCleaner's removal on one of them, and
curated clips encoded with a faster x264 preset (the synthesis reads them once).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import time

from g2w.curate.config import CurateConfig
from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html
from g2w.remove import DEFAULT_METHOD
from g2w.sample_data import generate_samples
from g2w.video.decode import FrameReader

log = logging.getLogger(__name__)

FRAMES_PER_VIDEO = 5
SAMPLES = 2  # synthesized pairs: every removal method and the judge run on each
CLIP_PRESET = "veryfast"  # x264 preset of the curated clips (the curate command's own default is slower)
BASELINES = ("identity", "telea-gt")
METHODS = (*BASELINES, DEFAULT_METHOD)  # the mask-free default (the shipped segmenter's mask)


def _sidecar(video_path: str) -> dict:
    path = os.path.splitext(video_path)[0] + ".json"
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def _raw_sheet(out_dir: str, videos: list[str]) -> str:
    """Evenly spaced frames of every raw video, each labelled with its ground-truth block."""
    images, labels = [], []
    for path in videos:
        truth = _sidecar(path)
        duration = truth.get("duration_s", 0.0)
        times = [(k + 0.5) * duration / FRAMES_PER_VIDEO for k in range(FRAMES_PER_VIDEO)]
        blocks = truth.get("blocks", [])
        kinds = [next((b["kind"] for b in blocks if b["start_s"] <= t < b["end_s"]), "") for t in times]
        images += list(FrameReader(path).read_at(times))
        labels += [f"{os.path.basename(path)[:-4]} {t:.1f}s {k}" for t, k in zip(times, kinds)]
    name = "raw_contact_sheet.png"
    save_png(os.path.join(out_dir, name), contact_sheet(images, labels, FRAMES_PER_VIDEO))
    return name


def _before_after(out_dir: str, methods: list[str]) -> str | None:
    """The middle frame of the first synthesized pair: with its HUD, the clean truth, and each
    method's removal, side by side; None before synthesis has run."""
    from g2w.cases.case import load_cases

    synth = os.path.join(out_dir, "synth")
    if not os.path.isdir(os.path.join(synth, "samples")):
        return None
    case = load_cases(synth)[0]
    middle = len(FrameReader(case.source)) // 2
    edits = {m: os.path.join(out_dir, "removed", m, f"{case.case_id}.mp4") for m in methods}
    edits["gamecleaner"] = os.path.join(out_dir, "gamecleaner", "removed", f"{case.case_id}.mp4")
    columns = [("with HUD", case.source), ("clean (truth)", case.reference)] + list(edits.items())
    images, labels = [], []
    for label, path in columns:
        if path and os.path.exists(path):
            reader = FrameReader(path)
            images.append(reader.read([min(middle, len(reader) - 1)])[0])
            labels.append(label)
    name = "before_after.png"
    save_png(os.path.join(out_dir, name), contact_sheet(images, labels, len(images), thumb_width=320))
    return name


def _stage(name: str, timings: dict, start: float) -> float:
    now = time.perf_counter()
    timings[name] = round(now - start, 1)
    return now


def run_demo(
    out_dir: str | os.PathLike,
    count: int = 6,
    seed: int = 0,
    duration_s: float = 20.0,
    samples: int = SAMPLES,
    clip_pretrained: str | None = None,
    clip_model: str = "ViT-B-16",
    real_clips: str | None = None,
    gamecleaner: bool = True,
) -> dict:
    from g2w.hud.bootstrap import bootstrap_library
    from g2w.jobs.curate import run_curate
    from g2w.jobs.detect import run_detect
    from g2w.jobs.evaluate import run_evaluate
    from g2w.jobs.gamecleaner_demo import run_gamecleaner_demo
    from g2w.jobs.options import DetectOptions
    from g2w.jobs.remove import run_remove
    from g2w.jobs.synthesize import run_synthesize
    from g2w.runtime.ray_logs import use_run_folder

    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    use_run_folder(out_dir)  # Ray's logs in OUT/logs/ray, not in the first stage's folder
    paths = {
        k: os.path.join(out_dir, k)
        for k in ("raw", "curated", "assets", "synth", "synth_real", "removed", "eval", "detect")
    }
    timings: dict = {}
    t = time.perf_counter()

    log.info(f"== 1/6 sample videos: {count} x {duration_s:g} s -> {paths['raw']}")
    videos = generate_samples(
        paths["raw"], count, seed, duration_s, progress=lambda i, n, p: log.debug(f"  {i}/{n} {p}")
    )
    t = _stage("samples", timings, t)

    log.info(f"== 2/6 curation -> {paths['curated']}")
    config = CurateConfig(seed=seed, clip_model=clip_model, clip_pretrained=clip_pretrained, preset=CLIP_PRESET)
    curated = run_curate([paths["raw"]], paths["curated"], config)
    t = _stage("curate", timings, t)
    summary = {
        "seed": seed,
        "timings_s": timings,
        "curate": curated["counts"],
        "curate_embedding": curated["embedding_model"],
        "evaluate": {},
    }
    if not curated["counts"]["kept"]:
        log.info("no clip was kept, so there is nothing to synthesize from; stopping after curation")
        return _finish(out_dir, videos, summary)

    log.info(f"== 3/6 HUD asset library (procedural bootstrap) -> {paths['assets']}")
    library = bootstrap_library(paths["assets"], per_label=3, seed=seed)
    t = _stage("assets", timings, t)

    log.info(f"== 4/6 synthesis: {samples} paired samples from the kept clips -> {paths['synth']}")
    synth = run_synthesize(paths["curated"], paths["assets"], paths["synth"], samples, seed)
    real = synthesize_real(real_clips, paths["assets"], paths["synth_real"], samples, seed)
    if real is not None:
        summary["synthesize_real"] = real
    t = _stage("synthesize", timings, t)

    log.info(
        f"== 5/6 UI detection by the segmenter -> {paths['detect']}; removal baselines and propagate, "
        "scored by the reference judge"
    )
    detected = run_detect(DetectOptions([os.path.join(paths["synth"], "samples", "*", "hud.mp4")], paths["detect"]))
    scores = {}
    for method in METHODS:
        edited = os.path.join(paths["removed"], method)
        run_remove(method, paths["synth"], edited)
        scores[method] = run_evaluate(paths["synth"], edited, os.path.join(paths["eval"], method))
    t = _stage("remove_evaluate", timings, t)

    if gamecleaner:
        log.info("== 6/6 GameCleaner (tiny, random-initialised): precache, training, removal, evaluation")
        summary["gamecleaner"] = run_gamecleaner_demo(
            paths["synth"], os.path.join(out_dir, "gamecleaner"), seed, os.path.join(paths["removed"], DEFAULT_METHOD)
        )
        scores["gamecleaner"] = summary["gamecleaner"]["evaluate"]
        t = _stage("gamecleaner", timings, t)

    summary.update(assets=library, synthesize=synth, detect=detected, evaluate=scores)
    return _finish(out_dir, videos, summary)


def synthesize_real(real_clips: str | None, assets: str, output: str, samples: int, seed: int) -> dict | None:
    """The demo's synthesis on real clean clips (`g2w capture`'s OUT/clean); None when there are none."""
    from g2w.jobs.synthesize import run_synthesize

    if not real_clips or not glob.glob(os.path.join(real_clips, "*.mp4")):
        return None
    log.info(f"   and {samples} from the real clips in {real_clips} -> {output}")
    return run_synthesize(real_clips, assets, output, samples, seed)


def _finish(out_dir: str, videos: list[str], summary: dict) -> dict:
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    report = _report(out_dir, videos, summary)
    log.info(f"summary: {os.path.join(out_dir, 'summary.json')}\nreport:  {report}")
    return summary


def _report(out_dir: str, videos: list[str], summary: dict) -> str:
    sheet = _raw_sheet(out_dir, videos)
    stages = [
        {"stage": "curation", "report": "curated/report.html", "outputs": "curated/manifest.parquet, curated/clips/"},
        {"stage": "HUD assets", "report": "assets/report.html", "outputs": "assets/assets.parquet, assets/images/"},
        {"stage": "synthesis", "report": "synth/report.html", "outputs": "synth/manifest.parquet, synth/samples/"},
        {
            "stage": "synthesis on real clips",
            "report": "synth_real/report.html",
            "outputs": "synth_real/manifest.parquet, synth_real/samples/",
        },
        {
            "stage": "segmenter detection",
            "report": "detect/report.html",
            "outputs": "detect/videos/*/mask.mkv, annotation.json, preview.png",
        },
        *[
            {"stage": f"evaluation: {m}", "report": f"eval/{m}/report.html", "outputs": f"eval/{m}/metrics.json"}
            for m in METHODS
        ],
        {
            "stage": "GameCleaner training (random-initialised, tiny)",
            "report": "gamecleaner/run/report.html",
            "outputs": "gamecleaner/run/weights.safetensors",
        },
        {
            "stage": "evaluation: gamecleaner",
            "report": "gamecleaner/eval/report.html",
            "outputs": "gamecleaner/eval/metrics.json",
        },
    ]
    links = "".join(
        f"<li><a href='{s['report']}'>{s['stage']}</a> — {s['outputs']}</li>"
        for s in stages
        if os.path.exists(os.path.join(out_dir, s["report"]))
    )
    metrics = [
        {"method": method, "split": split, **scores}
        for method, result in summary["evaluate"].items()
        for split, scores in result["scores"].items()
    ]
    warnings = [
        w
        for w in (summary["curate_embedding"].get("warning", ""), summary.get("gamecleaner", {}).get("warning", ""))
        if w
    ]
    before_after = _before_after(out_dir, [m for m in METHODS if m in summary["evaluate"]])
    page = os.path.join(out_dir, "report.html")
    write_html(
        page,
        "g2w demo run",
        [
            *(
                [
                    (
                        "Warnings",
                        "<ul>"
                        + "".join(f"<li style='color:#b00;font-weight:bold'>{w}</li>" for w in warnings)
                        + "</ul>",
                    )
                ]
                if warnings
                else []
            ),
            *(
                [
                    (
                        "Before and after: one synthesized pair, every removal method",
                        f"<img src='{before_after}' style='max-width:100%'>",
                    )
                ]
                if before_after
                else []
            ),
            ("Stages", f"<ul>{links}</ul>"),
            ("Timings (s)", key_values(summary["timings_s"])),
            ("Curation counts", key_values(summary["curate"])),
            (
                "Baselines and propagate (mask-free), reference judge",
                table(metrics, list(metrics[0]) if metrics else []),
            ),
            ("Raw footage, labelled by ground-truth block", f"<img src='{sheet}' style='max-width:100%'>"),
        ],
    )
    return page
