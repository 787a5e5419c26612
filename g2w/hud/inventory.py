"""Inventory states for a separated weapon bar (Appendix E.2, render side).

A bar asset that carries slot geometry is drawn empty, and its slots are filled with icons from
the library's separated icons. The video keeps at most 120 visually valid icons (at least 8x8,
aspect 0.15-5.8). A new state starts every U(3.2, 7.8) s; each state fills a U[0.62, 1] share of
the slots with icons fitted to 78 % of the slot, nudged by a small seeded jitter and drawn at
opacity 0.96. Icons are child instances of the bar in the annotation.

Streams: state boundaries come from `timing`, occupancy and icon choice from `assets`, the
jitter from `composition`.
"""

from __future__ import annotations

import math

from g2w.hud.assets import Asset, AssetLibrary
from g2w.hud.profile import (
    ICON_ASPECT,
    ICON_FIT,
    ICON_JITTER_FRAC,
    ICON_MAX_PER_VIDEO,
    ICON_MIN_PX,
    INVENTORY_OCCUPANCY,
    INVENTORY_STATE_S,
)
from g2w.hud.seeds import SeedStreams


def valid_icon(asset: Asset) -> bool:
    return (
        asset.width >= ICON_MIN_PX and asset.height >= ICON_MIN_PX and ICON_ASPECT[0] <= asset.aspect <= ICON_ASPECT[1]
    )


def icon_pool(library: AssetLibrary, streams: SeedStreams, include_unverified: bool = False) -> list[str]:
    """Ids of the icons this video may use: all valid ones, or a seeded 120 of them."""
    ids = [a.asset_id for a in library.icons(include_unverified) if valid_icon(a)]
    if len(ids) <= ICON_MAX_PER_VIDEO:
        return ids
    rng = streams.rng("assets", "icon_pool")
    keep = sorted(rng.choice(len(ids), ICON_MAX_PER_VIDEO, replace=False).tolist())
    return [ids[k] for k in keep]


def state_times(streams: SeedStreams, duration_s: float) -> list[list[float]]:
    """[start, end) seconds of each inventory state covering the clip."""
    rng = streams.rng("timing", "inventory")
    times, t = [], 0.0
    while t < duration_s:
        end = t + float(rng.uniform(*INVENTORY_STATE_S))
        times.append([t, min(end, duration_s)])
        t = end
    return times


def fit_icon(icon: Asset, slot_w: float, slot_h: float) -> tuple[int, int]:
    s = ICON_FIT * min(slot_w / icon.width, slot_h / icon.height)
    return max(1, math.floor(icon.width * s)), max(1, math.floor(icon.height * s))


def sample_states(
    streams: SeedStreams, library: AssetLibrary, slots: list[list[int]], duration_s: float, pool: list[str]
) -> list[dict]:
    """The inventory states of one bar; `slots` are slot boxes in the bar's fitted pixels."""
    states = []
    for k, (start, end) in enumerate(state_times(streams, duration_s)):
        pick = streams.rng("assets", "inventory", k)
        jitter = streams.rng("composition", "inventory", k)
        occupancy = float(pick.uniform(*INVENTORY_OCCUPANCY))
        count = min(len(slots), round(occupancy * len(slots))) if pool else 0
        filled = sorted(pick.choice(len(slots), count, replace=False).tolist()) if count else []
        icons = []
        for slot in filled:
            icon = library.get(pool[int(pick.integers(len(pool)))])
            x1, y1, x2, y2 = slots[slot]
            w, h = fit_icon(icon, x2 - x1, y2 - y1)
            jx = float(jitter.uniform(-1, 1)) * ICON_JITTER_FRAC * (x2 - x1)
            jy = float(jitter.uniform(-1, 1)) * ICON_JITTER_FRAC * (y2 - y1)
            # centred in the slot, then nudged; offsets are relative to the bar's top-left
            x = round(x1 + (x2 - x1 - w) / 2 + jx)
            y = round(y1 + (y2 - y1 - h) / 2 + jy)
            icons.append(
                {"slot": slot, "asset_id": icon.asset_id, "size": [w, h], "offset": [x, y], "jitter": [jx, jy]}
            )
        states.append({"start_s": start, "end_s": end, "occupancy": occupancy, "icons": icons})
    return states
