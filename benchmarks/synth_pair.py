"""One synthesized 5 s 720p pair against ffmpeg compositing one static RGBA overlay.

Ours: `render_sample` on a 1280x720 30 fps 150-frame clip: decode, plan, per-frame layers
(motion, status bars, inventory states, popups with their animations), composite, and encode
`hud.mp4` and `clean.mp4` (libx264) plus the FFV1 mask, the annotation and the record.

Peers, with the same encoder settings (libx264, same crf and preset, yuv420p):
  A. ffmpeg overlaying one static RGBA PNG (one of our assets) onto the clip, one output;
  B. the same overlay, plus re-encoding the clean clip as a second output (what we write too).
The ratio ours / peer says how much the dynamic renderer and its extra outputs cost over the
cheapest possible static overlay. Both sides get every core of the machine.

Usage: python benchmarks/synth_pair.py [--crf 18] [--preset veryfast] [--workdir /tmp/g2w_bench_synth]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import bootstrap_library
from g2w.hud.profile import SynthProfile
from g2w.hud.render import EncodeSettings, render_sample
from g2w.hud.seeds import SeedStreams
from g2w.sample_data import VideoSpec, write_sample


def ffmpeg(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crf", type=int, default=18)
    parser.add_argument("--preset", default="veryfast")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--workdir", default="/tmp/g2w_bench_synth")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    clip = write_sample(VideoSpec(0, 0, 1280, 720, 30, 5.0, "corridor", False, None), args.workdir, crf=18)
    lib_dir = os.path.join(args.workdir, "lib")
    bootstrap_library(lib_dir, per_label=4, seed=0)
    library = AssetLibrary.open(lib_dir)
    overlay = library.image_path(library.pool("map_radar")[0].asset_id)
    enc = ["-c:v", "libx264", "-preset", args.preset, "-crf", str(args.crf), "-pix_fmt", "yuv420p"]

    out = os.path.join(args.workdir, "sample")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    info = render_sample(clip, out, sample_id="bench", clip_id="bench", streams=SeedStreams(args.seed),
                         profile=SynthProfile(), library=library, encode=EncodeSettings(args.crf, args.preset))
    ours = time.perf_counter() - start

    peer_a = ffmpeg(["-i", clip, "-i", overlay, "-filter_complex", "[0:v][1:v]overlay=24:24", *enc,
                     os.path.join(args.workdir, "peer_hud.mp4")])
    peer_b = ffmpeg(["-i", clip, "-i", overlay, "-filter_complex", "[0:v]split[a][b];[a][1:v]overlay=24:24[h]",
                     "-map", "[h]", *enc, os.path.join(args.workdir, "peer_hud2.mp4"),
                     "-map", "[b]", *enc, os.path.join(args.workdir, "peer_clean.mp4")])
    print(f"clip: 1280x720 30 fps 150 frames; libx264 crf {args.crf} preset {args.preset}; {os.cpu_count()} cores")
    print(f"ours: {ours:.2f} s for hud.mp4 + clean.mp4 + mask.mkv + annotation ({info['persistent']} widgets, "
          f"{info['events']} popups, {info['instances']} instances, style {info['style']})")
    print(f"peer A (ffmpeg static overlay, 1 output):          {peer_a:.2f} s   ours / peer = {ours / peer_a:.2f}")
    print(f"peer B (ffmpeg static overlay + clean, 2 outputs): {peer_b:.2f} s   ours / peer = {ours / peer_b:.2f}")


if __name__ == "__main__":
    main()
