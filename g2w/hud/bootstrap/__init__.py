"""Procedural bootstrap of the HUD asset library: varied RGBA widgets for all 21 labels.

No real asset library ships with g2w, so `bootstrap_library(LIB, per_label, seed)` draws one:
for each label, `per_label` widgets from that label's makers (minimaps, compass strips,
health/stamina bars with bar geometry, hotbars with separate icons, kill feeds, subtitles, chat
logs, watermarks, facecams, debug readouts, ...), each with its own palette and font family.
Assets are drawn at the 1280x720 reference scale (scale_w = width / 1280), tightened to their
alpha >= 8 support, and marked `source=procedural`, verified and renderable. Ids derive from
(seed, label, index), so a rerun with the same arguments rewrites nothing it already has.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pyarrow.parquet as pq

from g2w.hud.assets import TABLE, Asset, AssetLibrary, LibraryWriter, asset_id, describe, tighten
from g2w.hud.bootstrap import spatial, status, text
from g2w.hud.bootstrap.draw import finish, palette
from g2w.hud.library_page import write_library_report
from g2w.taxonomy import ICON_ROLE, LABELS

REFERENCE = (1280, 720)

# label -> ((maker, weight), ...); a maker returns [(role, image, structure), ...] where items
# after the first are icons belonging to the first.
MAKERS = {
    "map_radar": ((spatial.minimap, 1.0),),
    "navigation_compass": ((spatial.compass, 1.0),),
    "player_status": ((status.health, 0.4), (status.stamina, 0.25), (status.status_panel, 0.35)),
    "teammate_roster": ((status.teammates, 1.0),),
    "weapon_ammo": ((status.ammo, 1.0),),
    "inventory": ((status.hotbar, 0.7), (status.filled_hotbar, 0.3)),
    "ability_status": ((status.abilities, 1.0),),
    "vehicle_status": ((status.gauge, 1.0),),
    "objective_status": ((text.objective, 1.0),),
    "match_status": ((text.match, 1.0),),
    "world_context": ((spatial.world_marker, 1.0),),
    "crosshair": ((spatial.crosshair, 1.0),),
    "interaction_prompt": ((text.prompt, 1.0),),
    "screen_notice": ((text.notice, 1.0),),
    "subtitle": ((text.subtitle, 1.0),),
    "chat_comms": ((text.chat, 1.0),),
    "menu_controls": ((text.menu, 1.0),),
    "performance_debug": ((text.debug, 1.0),),
    "watermark": ((text.watermark, 1.0),),
    "stream_overlay": ((text.stream_overlay, 1.0),),
    "other_hud": ((text.other, 1.0),),
}
assert set(MAKERS) == set(LABELS)


def _shift_structure(structure: dict, dx: int, dy: int, w: int, h: int) -> dict:
    """Structure boxes re-expressed after cropping the image by (dx, dy) to w x h."""

    def move(box):
        x1, y1, x2, y2 = box
        return [max(0, x1 - dx), max(0, y1 - dy), min(w, x2 - dx), min(h, y2 - dy)]

    out = dict(structure)
    if "bars" in out:
        out["bars"] = [{**b, "box": move(b["box"])} for b in out["bars"]]
    if "slots" in out:
        out["slots"] = [move(s) for s in out["slots"]]
    return out


def _rng(seed: int, label: str, index: int) -> np.random.Generator:
    key = int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "little")
    return np.random.default_rng([seed, key, index])


def main_asset_id(label: str, seed: int, index: int) -> str:
    return asset_id("proc", label, seed, index, 0)


def generate(label: str, index: int, seed: int) -> Iterator[tuple[Asset, np.ndarray]]:
    """The asset (and any icons) of one (label, index) draw, with their pixels."""
    rng = _rng(seed, label, index)
    pal = palette(rng)
    makers = MAKERS[label]
    weights = np.array([w for _, w in makers])
    maker = makers[int(rng.choice(len(makers), p=weights / weights.sum()))][0]
    parent = None
    for j, (role, image, structure) in enumerate(maker(rng, pal)):
        rgba, (dx, dy) = tighten(finish(image))
        h, w = rgba.shape[:2]
        aid = asset_id("proc", label, seed, index, j)
        yield (
            Asset(
                asset_id=aid,
                label=label,
                role=role,
                source="procedural",
                width=w,
                height=h,
                scale_w=w / REFERENCE[0],
                scale_h=h / REFERENCE[1],
                extraction_method="procedural",
                confidence=1.0,
                structure=_shift_structure(structure, dx, dy, w, h),
                parent_id=parent if role == ICON_ROLE else None,
                descriptor=describe(rgba),
                notes=f"{maker.__module__.rsplit('.', 1)[-1]}.{maker.__name__}",
            ),
            rgba,
        )
        parent = parent or aid


def bootstrap_memory(per_label: int, seed: int) -> AssetLibrary:
    """A bootstrap library held in memory (no files), for layout statistics and tests."""
    assets, images = [], {}
    for label in LABELS:
        for k in range(per_label):
            for asset, rgba in generate(label, k, seed):
                assets.append(asset)
                images[asset.asset_id] = rgba
    return AssetLibrary(assets, None, images)


def bootstrap_library(output: str | os.PathLike, per_label: int, seed: int, progress=None) -> dict:
    """Draw `per_label` assets for every label into the library at `output`, then write its
    summary.json, library_sheet.png and report.html; returns a summary of the run."""
    output = os.fspath(output)
    start = time.perf_counter()
    table = os.path.join(output, TABLE)
    existing = set(pq.read_table(table, columns=["asset_id"]).column(0).to_pylist()) if os.path.exists(table) else set()
    added, skipped = Counter(), 0
    with LibraryWriter(output) as writer:
        for n, label in enumerate(LABELS):
            for k in range(per_label):
                if main_asset_id(label, seed, k) in existing:
                    skipped += 1
                    continue
                for asset, rgba in generate(label, k, seed):
                    writer.add(asset, rgba)
                    added[label if asset.role != ICON_ROLE else "icon"] += 1
            if progress:
                progress(n + 1, len(LABELS), label)
    summary = {
        "library": output,
        "per_label": per_label,
        "seed": seed,
        "added": sum(added.values()),
        "added_by_label": dict(sorted(added.items())),
        "already_present": skipped,
        "seconds": round(time.perf_counter() - start, 3),
    }
    summary["library_summary"] = write_library_report(output)
    return summary
