"""Calibrate extraction confidence: matte known overlays composited over varied gameplay.

For every game style and frame size, a sample gameplay video gets several procedural assets of
different labels composited at known places (straight alpha, exact). `g2w.hud.extract` then
recovers them from an annotation file, and each recovered alpha is compared with the truth
(soft IoU, sum(min) / sum(max) of the alphas, and mean absolute alpha error over the box).
Failure cases are included on purpose: overlays whose pixels change over time (the premise of
temporal matting fails) and a span so short that the world barely moves. The script prints every
case and, for candidate thresholds, how many good and bad mattes each accepts; the threshold
chosen from it is `extract.MIN_CONFIDENCE`.

    python benchmarks/calibrate_extraction.py [--seconds 12] [--out /tmp/calib] [--results docs/results/extraction.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil

import numpy as np

from g2w.hud.assets import AssetLibrary
from g2w.hud.bootstrap import generate
from g2w.hud.extract import MIN_CONFIDENCE, ExtractConfig, extract_assets
from g2w.hud.patches import resize_rgba
from g2w.io.results_page import markdown_table, write_results_page
from g2w.sample_data import VideoSpec, render_frames
from g2w.sample_data.generate import STYLES
from g2w.video import VideoWriter

LABELS = (
    "map_radar",
    "player_status",
    "inventory",
    "watermark",
    "screen_notice",
    "objective_status",
    "crosshair",
    "match_status",
)
ANIMATED = ("match_status", "map_radar")  # overlays whose pixels change: the static-UI premise fails
SIZES = ((320, 180), (640, 360))
SPANS_S = (20.0, 1.0)  # the default span, and one so short the world barely moves
COLUMNS = 5
FLIP_S = 0.5  # an animated overlay swaps between two looks this often


def place(w: int, h: int, k: int, ow: int, oh: int) -> tuple[int, int]:
    """Overlay k's top-left on a 5x2 grid of cells (never overlapping)."""
    cw, ch = w // COLUMNS, h // 2
    return (k % COLUMNS) * cw + (cw - ow) // 2, (k // COLUMNS) * ch + (ch - oh) // 2


def _fitted(label: str, index: int, seed: int, w: int, h: int, size=None) -> np.ndarray:
    _, rgba = next(generate(label, index, seed))
    if size is None:
        s = min(0.8 * (w // COLUMNS) / rgba.shape[1], 0.7 * (h // 2) / rgba.shape[0], 1.5)
        size = (max(10, int(rgba.shape[1] * s)), max(10, int(rgba.shape[0] * s)))
    return resize_rgba(rgba, *size)


def make_case(out: str, style: str, size: tuple[int, int], seconds: float, seed: int) -> list[dict]:
    w, h = size
    overlays = []
    for k, label in enumerate(LABELS + ANIMATED):
        animated = k >= len(LABELS)
        first = _fitted(label, seed, seed, w, h)
        looks = [first, _fitted(label, seed + 1, seed, w, h, first.shape[1::-1])] if animated else [first]
        x, y = place(w, h, k, first.shape[1], first.shape[0])
        overlays.append(
            {"label": label, "rgba": first, "looks": looks, "xy": (x, y), "kind": "animated" if animated else "static"}
        )
    path = os.path.join(out, f"{style}_{w}x{h}_{seconds:g}s_{seed}.mp4")
    if not os.path.exists(path):  # same arguments, same video: reuse it
        with VideoWriter(path, w, h, 30, crf=18, preset="veryfast") as writer:
            for i, frame in enumerate(render_frames(VideoSpec(seed, 0, w, h, 30, seconds, style, False, None))):
                f = frame.astype(np.float32)
                for o in overlays:
                    (x, y), ov = o["xy"], o["looks"][int(i / 30 / FLIP_S) % len(o["looks"])]
                    a = ov[..., 3:4].astype(np.float32) / 255
                    region = f[y : y + ov.shape[0], x : x + ov.shape[1]]
                    region[:] = ov[..., :3] * a + region * (1 - a)
                writer.write(np.rint(f).astype(np.uint8))
    for o in overlays:
        o["path"], o["style"], o["size"] = path, style, f"{w}x{h}"
    return overlays


GOOD_SOFT_IOU = 0.8  # a matte is "good" with soft IoU >= 0.8 and mean alpha error <= 0.12
GOOD_MAE = 0.12


def score(lib: AssetLibrary, case: dict) -> dict:
    """Recovered alpha against the truth over the annotated box (first look for animated ones)."""
    (x, y), ov = case["xy"], case["rgba"]
    found = [
        a
        for a in lib
        if a.label == case["label"]
        and a.source_video == case["path"]
        and a.role != "icon"
        and a.source_box[0] >= x
        and a.source_box[1] >= y
        and a.source_box[2] <= x + ov.shape[1]
        and a.source_box[3] <= y + ov.shape[0]
    ]
    truth = ov[..., 3].astype(np.float32) / 255
    est = np.zeros_like(truth)
    if found:  # nothing is stored when the matte came out empty
        tx1, ty1, tx2, ty2 = found[0].source_box
        est[ty1 - y : ty2 - y, tx1 - x : tx2 - x] = lib.image(found[0].asset_id)[..., 3] / 255.0
    soft = float(np.minimum(est, truth).sum() / max(np.maximum(est, truth).sum(), 1e-6))
    mae = float(np.abs(est - truth).mean())
    return {
        "style": case["style"],
        "size": case["size"],
        "label": case["label"],
        "kind": case["kind"],
        "method": found[0].extraction_method if found else "empty_matte",
        "confidence": found[0].confidence if found else 0.0,
        "soft_iou": soft,
        "mae": mae,
        "good": soft >= GOOD_SOFT_IOU and mae <= GOOD_MAE,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="/tmp/g2w_calibrate_extraction")
    parser.add_argument("--results", help="also write the threshold table as this Markdown page")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cases, entries = [], []
    for style in STYLES:
        for size in SIZES:
            made = make_case(args.out, style, size, args.seconds, args.seed)
            cases += made
            entries.append(
                {
                    "video": made[0]["path"],
                    "time": args.seconds / 2,
                    "boxes": [
                        {
                            "label": o["label"],
                            "box": [
                                o["xy"][0],
                                o["xy"][1],
                                o["xy"][0] + o["rgba"].shape[1],
                                o["xy"][1] + o["rgba"].shape[0],
                            ],
                        }
                        for o in made
                    ],
                }
            )
    ann = os.path.join(args.out, "annotations.json")
    with open(ann, "w") as f:
        json.dump(entries, f)
    rows = []
    for span in SPANS_S:
        lib_dir = os.path.join(args.out, f"lib_span{span:g}")
        shutil.rmtree(lib_dir, ignore_errors=True)
        extract_assets(ann, lib_dir, ExtractConfig(span_s=span, min_confidence=0.0))
        lib = AssetLibrary.open(lib_dir)
        rows += [{**score(lib, c), "span_s": span} for c in cases]
    print(
        f"{'style':13s}{'size':9s}{'label':18s}{'kind':9s}{'span':>5s} {'method':17s}{'conf':>6s}{'soft':>7s}{'mae':>7s}"
    )
    for r in sorted(rows, key=lambda r: -r["confidence"]):
        print(
            f"{r['style']:13s}{r['size']:9s}{r['label']:18s}{r['kind']:9s}{r['span_s']:5g} {r['method']:17s}"
            f"{r['confidence']:6.2f}{r['soft_iou']:7.3f}{r['mae']:7.3f}{'' if r['good'] else '  bad'}"
        )
    print(f"\n{len(rows)} mattes, {sum(r['good'] for r in rows)} good (soft IoU >= {GOOD_SOFT_IOU}, MAE <= {GOOD_MAE})")
    print("threshold  accepted  good among accepted  good rejected  bad accepted")
    table = []
    for t in (0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7):
        acc = [r for r in rows if r["confidence"] >= t]
        rej_good = sum(r["good"] for r in rows if r["confidence"] < t)
        good = sum(r["good"] for r in acc)
        print(f"{t:9.2f}{len(acc):10d}{good / max(len(acc), 1):21.3f}{rej_good:15d}{len(acc) - good:14d}")
        table.append([t, len(acc), round(good / max(len(acc), 1), 3), rej_good, len(acc) - good])
    if args.results:
        write_page(args, rows, table)


def write_page(args: argparse.Namespace, rows: list[dict], table: list[list]) -> None:
    """The threshold table, and how the default threshold treats static and animated overlays."""
    default = [r for r in rows if r["confidence"] >= MIN_CONFIDENCE]
    by_kind = [
        [kind, span, len(group), sum(r in default for r in group), sum(r["good"] for r in group if r in default)]
        for kind in sorted({r["kind"] for r in rows})
        for span in SPANS_S
        if (group := [r for r in rows if r["kind"] == kind and r["span_s"] == span])
    ]
    body = (
        f"{len(rows)} mattes ({len(STYLES)} sample games x {len(SIZES)} sizes, spans {', '.join(f'{s:g} s' for s in SPANS_S)}),"
        f" {sum(r['good'] for r in rows)} good (soft IoU >= {GOOD_SOFT_IOU}, mean alpha error <= {GOOD_MAE}).\n\n"
        + markdown_table(["threshold", "accepted", "good among accepted", "good rejected", "bad accepted"], table)
        + f"\n\nAt the default threshold {MIN_CONFIDENCE} (`g2w.hud.extract.MIN_CONFIDENCE`), by overlay kind and span:\n\n"
        + markdown_table(["kind", "span s", "mattes", "accepted", "good among accepted"], by_kind)
    )
    command = f"python benchmarks/calibrate_extraction.py --seconds {args.seconds:g} --results {args.results}"
    notes = ["Verification by a person (the annotation's `verified`) remains the gate the paper uses."]
    write_results_page(args.results, "HUD asset extraction: confidence threshold", command, body, notes)


if __name__ == "__main__":
    main()
