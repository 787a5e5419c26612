"""The README's picture: one frame of a real clip with its HUD, the mask g2w detects and the frame
after the default removal, side by side.

It runs what a user runs on their own clip (`g2w detect`, then `g2w remove` with its default
method), on one video, without Ray, so the picture shows the shipped defaults and nothing tuned
for it.

    python scripts/readme_picture.py CLIP.mp4 --frame 75 --output docs/images/removal_strip.png
"""

from __future__ import annotations

import argparse
import logging
import os
import tempfile

import numpy as np
from PIL import Image, ImageDraw

from g2w.cases.case import Case
from g2w.fonts import font
from g2w.io.html_page import fit_box
from g2w.jobs.detect import detect_file
from g2w.remove import DEFAULT_METHOD, run_method
from g2w.video import FrameReader, iter_masks

PANEL_WIDTH = 480
LABEL_HEIGHT = 24
MASK_TINT = np.array([255, 40, 160], dtype=np.float32)

log = logging.getLogger("readme_picture")


def _mask_frame(path: str, index: int) -> np.ndarray:
    for k, mask in enumerate(iter_masks(path)):
        if k == index:
            return mask
    raise ValueError(f"{path} has no frame {index}")


def overlay(frame: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The frame darkened, with the masked pixels tinted so the mask reads at thumbnail size."""
    out = frame.astype(np.float32) * 0.45
    on = mask > 127
    out[on] = 0.35 * frame[on] + 0.65 * MASK_TINT
    return out.clip(0, 255).astype(np.uint8)


def strip(panels: list[np.ndarray], labels: list[str]) -> np.ndarray:
    thumbs = [fit_box(p, PANEL_WIDTH, PANEL_WIDTH * 9 // 16) for p in panels]
    height = max(t.shape[0] for t in thumbs)
    sheet = Image.new("RGB", (PANEL_WIDTH * len(thumbs), height + LABEL_HEIGHT), (24, 24, 28))
    draw = ImageDraw.Draw(sheet)
    for k, (thumb, label) in enumerate(zip(thumbs, labels)):
        sheet.paste(Image.fromarray(thumb), (k * PANEL_WIDTH, 0))
        draw.text((k * PANEL_WIDTH + 6, height + 4), label, font=font(14), fill=(235, 235, 235))
    return np.asarray(sheet)


def make_picture(video: str, frame: int, output: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        det = os.path.join(tmp, "det")
        log.info("detect: %s", video)
        detect_file(video, det)
        case = Case("clip", "wild", video, os.path.join(det, "annotation.json"))
        removed = os.path.join(tmp, "removed.mp4")
        log.info("remove: %s", DEFAULT_METHOD)
        run_method(DEFAULT_METHOD, case, removed)
        source = FrameReader(video).read([frame])[0]
        mask = _mask_frame(os.path.join(det, "mask.mkv"), frame)
        cleaned = FrameReader(removed).read([frame])[0]
    picture = strip(
        [source, overlay(source, mask), cleaned],
        ["with its HUD", "mask detected (g2w detect)", f"removed (g2w remove, {DEFAULT_METHOD})"],
    )
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    Image.fromarray(picture).save(output, optimize=True)
    log.info("wrote %s", output)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("video", help="a clip with a HUD")
    parser.add_argument("--frame", type=int, default=75, help="frame index to show (default 75)")
    parser.add_argument("--output", default="docs/images/removal_strip.png")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    make_picture(args.video, args.frame, args.output)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
