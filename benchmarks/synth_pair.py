"""One synthesized 5 s 720p pair against ffmpeg compositing one static RGBA overlay.

Ours: `render_sample` on a 1280x720 30 fps 150-frame clip: decode, plan, per-frame layers
(motion, status bars, inventory states, popups with their animations), composite, and encode
`hud.mp4` and `clean.mp4` (libx264) plus the FFV1 mask, the annotation and the record.

Peers, with the same encoder settings (libx264, same crf and preset, yuv420p):
  A. ffmpeg overlaying one static RGBA PNG (one of our assets) onto the clip, one output;
  B. the same overlay, plus re-encoding the clean clip as a second output (what we write too).
The ratio ours / peer says how much the dynamic renderer and its extra outputs cost over the
cheapest possible static overlay. Both sides get every core of the machine. The last line is
the ratio in CPU time (user + system, all threads) against peer B: on a quiet machine both sides
keep the cores busy and it tracks the wall-clock ratio, and on a shared, loaded one it is the
figure the load moves least (wall time then follows how the scheduler shares the cores).

Ours is timed warm, as in the synthesis job, where one worker process renders many samples: a
tiny sample is rendered first, so the per-process start-up (importing torch to look for CUDA,
loading decord, about 3 CPU s here) is not counted against one 5 s sample. ffmpeg's own start-up
is a few milliseconds and stays in the peer's time.

With --breakdown each part of ours then runs alone, serially, and prints its CPU seconds:
decoding to I420, layers + compositing + annotation, one x264 encode and the FFV1 mask. Their sum
against the peer's CPU time is the floor for the ratio on a machine whose cores are all busy.

Usage: python benchmarks/synth_pair.py [--crf 18] [--preset veryfast] [--workdir /tmp/g2w_bench_synth] [--breakdown]
       [--results docs/results/synth_pair.md]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import time

from g2w.hud.annotate import Annotator
from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import bootstrap_library
from g2w.hud.composite_yuv import YuvCompositor
from g2w.hud.layers import LayerSource
from g2w.hud.profile import SynthProfile
from g2w.hud.record import read_json
from g2w.hud.render import EncodeSettings, render_sample
from g2w.hud.seeds import SeedStreams
from g2w.io.results_page import markdown_table, write_results_page
from g2w.sample_data import VideoSpec, write_sample
from g2w.video import MaskWriter, VideoWriter, iter_video_frames


def cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ffmpeg(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)
    return time.perf_counter() - start


def cpu_seconds(fn) -> float:
    """CPU time (user + system, all threads) of one call."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    fn()
    after = resource.getrusage(resource.RUSAGE_SELF)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def breakdown(
    clip: str, sample_dir: str, library: AssetLibrary, crf: int, preset: str, workdir: str, threads: int
) -> None:
    """Each part of one sample alone, in CPU seconds."""
    record = read_json(os.path.join(sample_dir, "record.json"))
    w, h = record["video"]["width"], record["video"]["height"]
    frames: list = []
    decode = cpu_seconds(lambda: frames.extend(f.to_ndarray() for _, _, f in iter_video_frames(clip, threads=1)))
    source, compositor = LayerSource(record, library.image), YuvCompositor()
    annotator, rendered = Annotator(source), []

    def render() -> None:
        for i, frame in enumerate(frames[: record["video"]["frame_count"]]):
            layers = source.frame(i)
            rendered.append(compositor(frame, layers))
            annotator.add(i, layers)

    def encode(writer, write, items) -> None:
        with writer as out:
            for item in items:
                write(out, item)

    composite = cpu_seconds(render)
    x264 = cpu_seconds(
        lambda: encode(
            VideoWriter(os.path.join(workdir, "alone.mp4"), w, h, 30, crf, preset, threads=threads),
            VideoWriter.write_i420,
            (hud for hud, _ in rendered),
        )
    )
    ffv1 = cpu_seconds(
        lambda: encode(
            MaskWriter(os.path.join(workdir, "alone.mkv"), w, h, 30), MaskWriter.write, (m for _, m in rendered)
        )
    )
    print(
        f"breakdown (CPU s, each alone): decode to I420 {decode:.2f}, layers + composite + annotation "
        f"{composite:.2f}, one x264 encode {x264:.2f} (ours runs two), FFV1 mask {ffv1:.2f}; "
        f"sum {decode + composite + 2 * x264 + ffv1:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crf", type=int, default=18)
    parser.add_argument("--preset", default="veryfast")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_synth")
    parser.add_argument("--threads", type=int, default=0, help="x264 threads per output (0: x264's default)")
    parser.add_argument("--breakdown", action="store_true", help="also time each part of ours alone (CPU s)")
    parser.add_argument("--results", help="also write this Markdown results page")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    clip = write_sample(VideoSpec(0, 0, 1280, 720, 30, 5.0, "corridor", False, None), args.workdir, crf=18)
    lib_dir = os.path.join(args.workdir, "lib")
    bootstrap_library(lib_dir, per_label=4, seed=0)
    library = AssetLibrary.open(lib_dir)
    overlay = library.image_path(library.pool("map_radar")[0].asset_id)
    enc = ["-c:v", "libx264", "-preset", args.preset, "-crf", str(args.crf), "-pix_fmt", "yuv420p"]

    warm_clip = write_sample(VideoSpec(0, 1, 320, 180, 30, 1.0, "corridor", False, None), args.workdir)
    warm_up = os.path.join(args.workdir, "warm_up")
    shutil.rmtree(warm_up, ignore_errors=True)
    render_sample(
        warm_clip,
        warm_up,
        sample_id="warm",
        clip_id="warm",
        streams=SeedStreams(args.seed),
        profile=SynthProfile.tiny(),
        library=library,
        encode=EncodeSettings(args.crf, args.preset, threads=args.threads),
    )

    out = os.path.join(args.workdir, "sample")
    shutil.rmtree(out, ignore_errors=True)
    start, start_cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    info = render_sample(
        clip,
        out,
        sample_id="bench",
        clip_id="bench",
        streams=SeedStreams(args.seed),
        profile=SynthProfile(),
        library=library,
        encode=EncodeSettings(args.crf, args.preset, threads=args.threads),
    )
    ours = time.perf_counter() - start
    end_cpu = resource.getrusage(resource.RUSAGE_SELF)
    ours_cpu = end_cpu.ru_utime - start_cpu.ru_utime + end_cpu.ru_stime - start_cpu.ru_stime

    peer_a = ffmpeg(
        [
            "-i",
            clip,
            "-i",
            overlay,
            "-filter_complex",
            "[0:v][1:v]overlay=24:24",
            *enc,
            os.path.join(args.workdir, "peer_hud.mp4"),
        ]
    )
    peer_cpu = cpu_children()
    peer_b = ffmpeg(
        [
            "-i",
            clip,
            "-i",
            overlay,
            "-filter_complex",
            "[0:v]split[a][b];[a][1:v]overlay=24:24[h]",
            "-map",
            "[h]",
            *enc,
            os.path.join(args.workdir, "peer_hud2.mp4"),
            "-map",
            "[b]",
            *enc,
            os.path.join(args.workdir, "peer_clean.mp4"),
        ]
    )
    peer_b_cpu = cpu_children() - peer_cpu
    if args.breakdown:
        breakdown(clip, out, library, args.crf, args.preset, args.workdir, args.threads)
    print(
        f"clip: 1280x720 30 fps 150 frames; libx264 crf {args.crf} preset {args.preset}; {os.cpu_count()} cores; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"ours: {ours:.2f} s for hud.mp4 + clean.mp4 + mask.mkv + annotation ({info['persistent']} widgets, "
        f"{info['events']} popups, {info['instances']} instances, style {info['style']})"
    )
    print(f"peer A (ffmpeg static overlay, 1 output):          {peer_a:.2f} s   ours / peer = {ours / peer_a:.2f}")
    print(
        f"peer B (ffmpeg static overlay + clean, 2 outputs): {peer_b:.2f} s   ours / peer = {ours / peer_b:.2f} (wall)"
    )
    print(
        f"CPU time: ours {ours_cpu:.2f} s, peer B {peer_b_cpu:.2f} s; ratio ours / peer B (CPU time) = "
        f"{ours_cpu / peer_b_cpu:.2f}"
    )
    if args.results:
        rows = [
            ["ours: hud.mp4 + clean.mp4 + mask.mkv + annotation", round(ours, 2), round(ours_cpu, 2), 1.0, 1.0],
            ["peer A: ffmpeg static overlay, 1 output", round(peer_a, 2), "-", round(ours / peer_a, 2), "-"],
            [
                "peer B: ffmpeg static overlay + clean, 2 outputs",
                round(peer_b, 2),
                round(peer_b_cpu, 2),
                round(ours / peer_b, 2),
                round(ours_cpu / peer_b_cpu, 2),
            ],
        ]
        body = (
            f"One 1280x720 30 fps 150-frame sample (seed {args.seed}: {info['persistent']} widgets, {info['events']}"
            f" popups, style {info['style']}); libx264 crf {args.crf} preset {args.preset} on both sides; load average"
            f" {os.getloadavg()[0]:.1f} at the end.\n\n"
            + markdown_table(["side", "wall s", "CPU s", "ours / side (wall)", "ours / side (CPU)"], rows)
        )
        command = f"python benchmarks/synth_pair.py --crf {args.crf} --preset {args.preset} --results {args.results}"
        notes = [
            "Same encoder settings; not like for like in work: ours draws a dynamic HUD and also writes the mask"
            " and the annotation, the peer blends one static overlay.",
            "CPU time is the figure machine load moves least; wall time follows how the scheduler shares the cores.",
        ]
        write_results_page(args.results, "One synthesized pair against ffmpeg's static overlay", command, body, notes)


if __name__ == "__main__":
    main()
