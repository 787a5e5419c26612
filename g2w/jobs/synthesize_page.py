"""The synthesize job's report: clean and HUD frames side by side with the annotated boxes.

For a few finished samples, three frames (early, middle, late) are decoded from `clean.mp4`
and `hud.mp4`, the frame's boxes from `annotation.json` are drawn on the HUD frame with their
labels (and visible fraction when partly off-screen), and the pairs are tiled into
`OUT/report_frames.png`. `OUT/report.html` shows the summary, that sheet and the manifest.
"""

from __future__ import annotations

import json
import os

import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.hud.preview import draw_boxes
from g2w.io import storage
from g2w.io.html_page import fit_box, key_values, save_png, table, write_html
from g2w.video import FrameReader

SHOWN_SAMPLES = 6
FRAME_WIDTH = 320
COLUMNS = (
    "sample_id",
    "status",
    "reason",
    "clip_id",
    "style",
    "persistent",
    "suppressed",
    "events",
    "instances",
    "width",
    "height",
    "frame_count",
    "render_s",
    "reused",
    "device",
)


def sample_strip(sample_dir: str) -> np.ndarray:
    """One row: (clean | HUD with boxes) at 1/6, 1/2 and 5/6 of the sample, captioned. The
    sample folder may be in a bucket: its two videos are then fetched to temporary files."""
    ann = json.loads(storage.read_bytes(storage.join(sample_dir, "annotation.json")))
    n = ann["frame_count"]
    picks = [n // 6, n // 2, (5 * n) // 6]
    with (
        storage.local_copy(storage.join(sample_dir, "clean.mp4")) as clean_path,
        storage.local_copy(storage.join(sample_dir, "hud.mp4")) as hud_path,
    ):
        clean = FrameReader(clean_path).read(picks)
        hud = FrameReader(hud_path).read(picks)
    instances = {i["id"]: i for i in ann["instances"]}
    scale = FRAME_WIDTH / ann["width"]
    tiles = []
    for k, index in enumerate(picks):
        left = fit_box(clean[k], FRAME_WIDTH, 10**6)
        right = draw_boxes(fit_box(hud[k], FRAME_WIDTH, 10**6), ann["frames"][index]["objects"], instances, scale)
        pair = Image.fromarray(np.concatenate([left, right], axis=1))
        caption = Image.new("RGB", (pair.width, 16), (24, 24, 28))
        ImageDraw.Draw(caption).text(
            (4, 2),
            f"{sample_dir.rstrip('/').rsplit('/', 1)[-1]}  frame {index}  clean | HUD + boxes",
            font=font(11),
            fill=(230, 230, 230),
        )
        tile = Image.new("RGB", (pair.width, pair.height + 16))
        tile.paste(pair, (0, 0))
        tile.paste(caption, (0, pair.height))
        tiles.append(np.asarray(tile))
    height = max(t.shape[0] for t in tiles)
    padded = [np.pad(t, ((0, height - t.shape[0]), (0, 8), (0, 0))) for t in tiles]
    return np.concatenate(padded, axis=1)


def write_report(output: str, rows: list[dict], summary: dict) -> str:
    ok = [r for r in rows if r["status"] == "ok"][:SHOWN_SAMPLES]
    sections = [("Summary", key_values({k: v for k, v in summary.items() if k not in ("profile", "encoding")}))]
    if ok:
        strips = [sample_strip(r["sample_dir"]) for r in ok]
        width = max(s.shape[1] for s in strips)
        sheet = np.concatenate([np.pad(s, ((0, 6), (0, width - s.shape[1]), (0, 0))) for s in strips])
        save_png(os.path.join(output, "report_frames.png"), sheet)
        sections.append(
            ("Clean and HUD frames with annotated boxes", '<img src="report_frames.png" style="max-width:100%">')
        )
    listing = [
        {
            **{c: r.get(c) for c in COLUMNS},
            "preview": f"samples/{r['sample_id']}/preview.png" if r["status"] == "ok" else "",
        }
        for r in rows
    ]
    sections.append(("Samples (manifest.parquet)", table(listing, [*COLUMNS, "preview"], images=("preview",))))
    sections.append(("Profile and encoding", key_values({**summary["profile"], **summary["encoding"]})))
    path = os.path.join(output, "report.html")
    write_html(path, "g2w synthesize run", sections)
    return path
