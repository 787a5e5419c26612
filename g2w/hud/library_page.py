"""A report of an asset library: counts, and a sheet of assets per label over a checkerboard.

`g2w assets bootstrap` and `g2w assets extract` both finish with `write_library_report`, so a
person can open `LIB/report.html` and see what the renderer will draw from.
"""

from __future__ import annotations

import json
import os
from collections import Counter

import numpy as np
from PIL import Image, ImageDraw

from g2w.fonts import font
from g2w.hud.assets import AssetLibrary
from g2w.io.html_page import key_values, save_png, table, write_html
from g2w.taxonomy import LABELS

CELL = 120
LABEL_W = 150


def checker(w: int, h: int, size: int = 8) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w]
    tile = ((yy // size + xx // size) % 2).astype(np.uint8)
    return np.repeat((tile * 40 + 90)[..., None], 3, axis=2).astype(np.uint8)


def library_sheet(library: AssetLibrary, per_label: int = 6) -> np.ndarray:
    """One row per label (icons get their own row): up to `per_label` assets, each fitted in a cell."""
    rows = []
    for label in [*LABELS, "icon"]:
        assets = (
            [a for a in library if a.role == "icon"]
            if label == "icon"
            else [a for a in library if a.label == label and a.role != "icon" and a.renderable]
        )
        rows.append((label, sorted(assets, key=lambda a: a.asset_id)[:per_label]))
    sheet = Image.new("RGB", (LABEL_W + per_label * CELL, len(rows) * CELL), (28, 28, 32))
    draw = ImageDraw.Draw(sheet)
    for r, (label, assets) in enumerate(rows):
        draw.text((6, r * CELL + CELL // 2 - 7), label, font=font(13, bold=True), fill=(230, 230, 230))
        for c, asset in enumerate(assets):
            rgba = Image.fromarray(library.image(asset.asset_id))
            rgba.thumbnail((CELL - 8, CELL - 8))
            cell = Image.fromarray(checker(CELL - 4, CELL - 4)).convert("RGBA")
            cell.alpha_composite(rgba, ((cell.width - rgba.width) // 2, (cell.height - rgba.height) // 2))
            sheet.paste(cell.convert("RGB"), (LABEL_W + c * CELL + 2, r * CELL + 2))
    return np.asarray(sheet)


def library_summary(library: AssetLibrary) -> dict:
    assets = list(library)
    return {
        "assets": len(assets),
        "renderable": sum(a.renderable and a.verified for a in assets),
        "unverified": sum(not a.verified for a in assets),
        "by_label": dict(sorted(Counter(a.label for a in assets if a.role != "icon").items())),
        "icons": sum(a.role == "icon" for a in assets),
        "by_source": dict(Counter(a.source for a in assets)),
        "by_method": dict(Counter(a.extraction_method for a in assets)),
        "with_bars": sum(bool(a.structure.get("bars")) for a in assets),
        "with_slots": sum(bool(a.structure.get("slots")) for a in assets),
        "skipped_splits": sum(a.structure.get("split") == "skipped" for a in assets),
    }


def write_library_report(root: str, extra: dict | None = None) -> dict:
    """Write LIB/summary.json, LIB/library_sheet.png and LIB/report.html; returns the summary."""
    library = AssetLibrary.open(root)
    summary = {**library_summary(library), **(extra or {})}
    with open(os.path.join(root, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    save_png(os.path.join(root, "library_sheet.png"), library_sheet(library))
    listing = [
        {
            "asset_id": a.asset_id,
            "label": a.label,
            "role": a.role,
            "size": f"{a.width}x{a.height}",
            "source": a.source,
            "method": a.extraction_method,
            "confidence": round(a.confidence, 3),
            "verified": a.verified,
            "renderable": a.renderable,
            "notes": a.notes,
            "image": f"images/{a.asset_id}.png" if a.renderable else "",
        }
        for a in sorted(library, key=lambda a: (a.label, a.asset_id))
    ]
    write_html(
        os.path.join(root, "report.html"),
        "HUD asset library",
        [
            ("Summary", key_values({k: v for k, v in summary.items()})),
            ("Assets by label (over a checkerboard)", '<img src="library_sheet.png" style="max-width:100%">'),
            ("All assets", table(listing, list(listing[0]) if listing else [], images=("image",))),
        ],
    )
    return summary
