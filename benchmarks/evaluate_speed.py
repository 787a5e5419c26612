"""Evaluation and baseline-removal speed, each measured against ffmpeg doing the nearest job.

On one 1280x720, 30 fps, 5 s synthetic case (a sample game with the baked sample HUD):

1. Evidence for one video (`prepare_case`: probe, validate, decode the 10 sampled frames of
   source and edit, Lanczos to the 1280x720 canvas, render 10 overviews + every detail sheet,
   write PNGs) against ffmpeg selecting the same 20 frames, Lanczos-scaling them and writing
   them as PNGs (`select` + `scale=flags=lanczos`, two runs): our extra cost is the sheets.
2. The reference judge for one video (decode source, edit and reference at the sampled
   frames; measure every element and frame) against ffmpeg's full-reference `ssim` filter
   over the same sampled frames of edit and reference.
3. `telea-gt` removal of the whole clip (decode, per-frame mask from mask.mkv, OpenCV Telea,
   libx264 crf 18 veryfast) against ffmpeg's `removelogo` with the union mask as a static
   image, encoding with the same settings.

Prints each time and the ratio ours / ffmpeg. The peers are NOT like-for-like: each is ffmpeg
doing the nearest job it has (removelogo is not Telea with per-frame masks, ssim is not our
per-element judge, and the PNG peer renders no sheets), so a ratio says what our extra work
costs, not that one implementation beats another. The thread settings are the same: this
process and every ffmpeg it starts are pinned to one CPU, OpenCV runs one thread, and ffmpeg
is asked for one decoding, filtering and encoding thread.
Usage: python benchmarks/evaluate_speed.py [--workdir /tmp/g2w_eval_bench] [--results docs/results/evaluate_speed.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import cv2
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image

from g2w.cases.annotation import load_annotation
from g2w.cases.canvas import DEFAULT_CANVAS
from g2w.cases.case import load_cases
from g2w.evaluate.canonical_frames import read_canonical
from g2w.evaluate.judges.reference import Thresholds, judge_frames
from g2w.evaluate.plan import plan_from_dict
from g2w.evaluate.prepare import prepare_case
from g2w.io.results_page import markdown_table, write_results_page
from g2w.remove.baselines import telea_gt
from g2w.sample_data import VideoSpec, render_frames, sidecar_for
from g2w.video import MaskWriter, VideoWriter

SPEC = VideoSpec(
    seed=5, index=1, width=1280, height=720, fps=30, duration_s=5.0, style="corridor", hud=True, first_event="idle"
)


def make_case(root: str) -> None:
    """A one-sample synthesis folder: clean, HUD, mask (where the HUD changed pixels) and an
    annotation listing each element's box on every frame."""
    folder = os.path.join(root, "samples", "b000")
    os.makedirs(folder, exist_ok=True)
    union = np.zeros((SPEC.height, SPEC.width), bool)
    frames = 0
    with (
        VideoWriter(os.path.join(folder, "clean.mp4"), SPEC.width, SPEC.height, SPEC.fps, preset="veryfast") as clean,
        VideoWriter(os.path.join(folder, "hud.mp4"), SPEC.width, SPEC.height, SPEC.fps, preset="veryfast") as hud,
        MaskWriter(os.path.join(folder, "mask.mkv"), SPEC.width, SPEC.height, SPEC.fps) as masks,
    ):
        for plain, with_hud in zip(render_frames(SPEC, with_hud=False), render_frames(SPEC, with_hud=True)):
            clean.write(plain)
            hud.write(with_hud)
            mask = (plain != with_hud).any(axis=2)
            union |= mask
            masks.write(np.where(mask, 255, 0).astype(np.uint8))
            frames += 1
    Image.fromarray(np.where(union, 255, 0).astype(np.uint8)).save(os.path.join(root, "union_mask.png"))
    elements = sidecar_for(SPEC, "hud.mp4")["hud"]["elements"]
    instances = [
        {
            "id": f"e{k}",
            "label": e["label"],
            "role": e["label"],
            "kind": "persistent",
            "asset_id": None,
            "asset_source": "g2w.sample_data",
            "parent": None,
        }
        for k, e in enumerate(elements)
    ]
    objects = [{"id": f"e{k}", "box": e["box"], "visible_fraction": 1.0} for k, e in enumerate(elements)]
    annotation = {
        "version": 1,
        "width": SPEC.width,
        "height": SPEC.height,
        "fps": float(SPEC.fps),
        "frame_count": frames,
        "coordinates": "half-open xyxy",
        "alpha_threshold": 8,
        "instances": instances,
        "frames": [{"frame": i, "objects": objects} for i in range(frames)],
    }
    with open(os.path.join(folder, "annotation.json"), "w") as f:
        json.dump(annotation, f)
    pq.write_table(
        pa.Table.from_pylist(
            [
                {
                    "sample_id": "b000",
                    "status": "ok",
                    "reason": "",
                    "clip_id": "bench",
                    "seed": SPEC.seed,
                    "width": SPEC.width,
                    "height": SPEC.height,
                    "fps": float(SPEC.fps),
                    "frame_count": frames,
                }
            ]
        ),
        os.path.join(root, "manifest.parquet"),
    )


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def ffmpeg(*args: str) -> None:
    """ffmpeg with one filter thread; callers put `-threads 1` before each input (decoder) and
    before the output (encoder)."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-filter_threads", "1", *args], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", default="/tmp/g2w_eval_bench")
    parser.add_argument("--results", help="also write this Markdown results page")
    args = parser.parse_args()
    if not shutil.which("ffmpeg"):
        sys.exit("ffmpeg is needed as the peer (make installs it)")
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one CPU for us and for every ffmpeg
    cv2.setNumThreads(1)
    root = os.path.join(args.workdir, "cases")
    if not os.path.exists(os.path.join(root, "manifest.parquet")):
        make_case(root)
    case = load_cases(root)[0]
    edited = os.path.join(args.workdir, "telea")
    os.makedirs(edited, exist_ok=True)

    # 3. telea-gt over the whole clip, against ffmpeg removelogo (static union mask).
    ours_remove, frames = timed(lambda: telea_gt(case, case.edited_path(edited)))
    peer_remove, _ = timed(
        lambda: ffmpeg(
            "-threads",
            "1",
            "-i",
            case.source,
            "-vf",
            f"removelogo={os.path.join(root, 'union_mask.png')}",
            "-c:v",
            "libx264",
            "-threads",
            "1",
            "-preset",
            "veryfast",
            "-crf",
            "18",
            "-pix_fmt",
            "yuv420p",
            os.path.join(args.workdir, "removelogo.mp4"),
        )
    )

    # 1. Evidence for one video, from scratch.
    evidence_root = os.path.join(args.workdir, "evidence")
    shutil.rmtree(evidence_root, ignore_errors=True)
    ours_evidence, prep = timed(lambda: prepare_case(case, edited, evidence_root, DEFAULT_CANVAS))
    plan = plan_from_dict(prep["plan"])
    select = "+".join(f"eq(n\\,{s.source_index})" for s in plan.samples)
    peer_dir = os.path.join(args.workdir, "ffmpeg_frames")
    os.makedirs(peer_dir, exist_ok=True)

    def peer_frames():
        for name, path in (("src", case.source), ("edt", case.edited_path(edited))):
            ffmpeg(
                "-threads",
                "1",
                "-i",
                path,
                "-vf",
                f"select='{select}',scale=1280:720:flags=lanczos",
                "-fps_mode",
                "passthrough",
                "-threads",
                "1",
                os.path.join(peer_dir, f"{name}_%03d.png"),
            )

    peer_evidence, _ = timed(peer_frames)
    images = len(os.listdir(prep["evidence_dir"])) - 1

    # 2. The reference judge for one video, against ffmpeg ssim on the same sampled frames.
    def ours_judge():
        src_idx = [s.source_index for s in plan.samples]
        return judge_frames(
            plan,
            read_canonical(case.source, src_idx, plan.canvas),
            read_canonical(case.edited_path(edited), [s.edited_index for s in plan.samples], plan.canvas),
            read_canonical(case.reference, src_idx, plan.canvas),
            Thresholds(),
        )

    ours_judge_s, judgment = timed(ours_judge)
    peer_judge_s, _ = timed(
        lambda: ffmpeg(
            "-threads",
            "1",
            "-i",
            case.edited_path(edited),
            "-threads",
            "1",
            "-i",
            case.reference,
            "-lavfi",
            f"[0:v]select='{select}'[a];[1:v]select='{select}'[b];[a][b]ssim",
            "-f",
            "null",
            "-",
        )
    )

    n_el = len(judgment["elements"])
    print(
        f"case: {case.source} ({frames} frames, 1280x720 @ 30 fps, {len(load_annotation(case.annotation).instances)} HUD elements)"
    )
    print(
        f"telea-gt removal (whole clip):   ours {ours_remove:6.2f} s  ffmpeg removelogo {peer_remove:6.2f} s  "
        f"ratio ours/ffmpeg = {ours_remove / peer_remove:.2f}"
    )
    print(
        f"evidence for one video ({images} PNGs): ours {ours_evidence:6.2f} s  ffmpeg 20 frames -> PNG {peer_evidence:6.2f} s  "
        f"ratio ours/ffmpeg = {ours_evidence / peer_evidence:.2f}"
    )
    print(
        f"reference judge ({len(plan.samples)} frames, {n_el} elements): ours {ours_judge_s:6.2f} s  "
        f"ffmpeg ssim {peer_judge_s:6.2f} s  ratio ours/ffmpeg = {ours_judge_s / peer_judge_s:.2f}"
    )
    if args.results:
        rows = [
            ["telea-gt removal, whole clip", "ffmpeg removelogo", ours_remove, peer_remove],
            [f"evidence for one video ({images} PNGs)", "ffmpeg 20 frames to PNG", ours_evidence, peer_evidence],
            [
                f"reference judge ({len(plan.samples)} frames, {n_el} elements)",
                "ffmpeg ssim",
                ours_judge_s,
                peer_judge_s,
            ],
        ]
        body = f"One synthetic case, {frames} frames at 1280x720, 30 fps; one CPU for both sides.\n\n" + markdown_table(
            ["task", "peer", "ours s", "peer s", "ours / peer"], [[*r, round(r[2] / r[3], 2)] for r in rows]
        )
        notes = [
            "Not like for like: each peer is ffmpeg doing the nearest job it has, so a ratio is what our extra work costs."
        ]
        command = f"python benchmarks/evaluate_speed.py --results {args.results}"
        write_results_page(args.results, "Evaluation and baseline removal against ffmpeg", command, body, notes)


if __name__ == "__main__":
    main()
