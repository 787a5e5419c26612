"""Transient popup events (Appendix B.3, Tables 11-13).

Five-second profile: the popup count M follows P(M = 0..5) = (0.14, 0.43, 0.28, 0.10, 0.04,
0.01) (E[M] = 1.5), then M categories are drawn one by one with Table 11's weights among the
categories still under their maximum. The general profile instead runs one Bernoulli trial per
category slot (`profile.bernoulli_slot_p`): 5.50 events expected over the automatic style mixture.

Each event then draws the taxonomy of its asset from Table 12's mixture (falling back to the
mixture's other members, renormalized, when the library has no fitting asset), an anchor from
its category's candidates, a duration clipped to the clip and a start inside it, a drift
direction, and an animation. Events anchored to a stack are placed so that stack members that
are on screen at the same time never overlap: each takes the first slot, moving away from the
stack's origin, whose rectangle (with its drift) misses those of its overlapping neighbours.
Border-arc events travel across the frame and take no stack slot.
"""

from __future__ import annotations

import numpy as np

from g2w.hud.animation import sample_animation
from g2w.hud.priors import Style, anchor_xy
from g2w.hud.profile import (
    ASSET_MIXTURE,
    EVENT_ANCHORS,
    EVENT_POLICY,
    EVENT_PROFILES,
    FREE_ANCHOR_BOX,
    NEAR_CENTER_SPREAD,
    POPUP_COUNT_P,
    STACK_DIRECTION,
    STACK_GAP_FRAC,
    SynthProfile,
    bernoulli_slot_p,
)
from g2w.hud.seeds import SeedStreams
from g2w.hud.selection import AssetPicker, SizeRule
from g2w.types import Box


def popup_categories(streams: SeedStreams, profile: SynthProfile, style: Style) -> list[str]:
    """The logical categories of this clip's popups, in draw order."""
    rng = streams.rng("composition", "popups")
    names = list(EVENT_POLICY)
    if profile.popups == "bernoulli":
        out = []
        for name in names:
            weight, maximum = EVENT_POLICY[name]
            p = bernoulli_slot_p(weight, style.transient_density)
            out += [name] * int((rng.random(maximum) < p).sum())
        return out
    m = int(rng.choice(len(POPUP_COUNT_P), p=np.array(POPUP_COUNT_P)))
    counts = dict.fromkeys(names, 0)
    out = []
    for _ in range(m):
        open_ = [n for n in names if counts[n] < EVENT_POLICY[n][1]]
        w = np.array([EVENT_POLICY[n][0] for n in open_])
        name = open_[int(rng.choice(len(open_), p=w / w.sum()))]
        counts[name] += 1
        out.append(name)
    return out


def _pick_asset(picker: AssetPicker, rng: np.random.Generator, category: str, style: Style):
    """Draw the asset taxonomy from the mixture, falling back to its other members."""
    prof = EVENT_PROFILES[category]
    rule = {"popup": SizeRule(prof.aspect, prof.w_max, prof.h_max, style.ui_scale)}
    mixture = dict(ASSET_MIXTURE[category])
    labels = list(mixture)
    drawn = labels[int(rng.choice(len(labels), p=np.array([mixture[k] for k in labels])))]
    order = [drawn] + sorted((k for k in labels if k != drawn), key=lambda k: -mixture[k])
    for label in order:
        pick = picker.pick(rng, label, rule)
        if pick is not None:
            return drawn, label, pick
    return drawn, None, None


def _rest_xy(
    anchor: str, rng: np.random.Generator, w: int, h: int, width: int, height: int, weapon_rect: Box | None
) -> tuple[float, float]:
    if anchor == "world":
        fx, fy = float(rng.uniform(*FREE_ANCHOR_BOX[0])), float(rng.uniform(*FREE_ANCHOR_BOX[1]))
        return anchor_xy(fx, fy, w, h, width, height)
    if anchor == "above weapon" and weapon_rect is not None:
        gap = STACK_GAP_FRAC * min(width, height)
        return (weapon_rect.x1 + weapon_rect.x2 - w) / 2, weapon_rect.y1 - gap - h
    fx, fy = EVENT_ANCHORS[anchor]
    if anchor == "near-center":
        fx += float(rng.uniform(-NEAR_CENTER_SPREAD, NEAR_CENTER_SPREAD))
        fy += float(rng.uniform(-NEAR_CENTER_SPREAD, NEAR_CENTER_SPREAD))
    return anchor_xy(fx, fy, w, h, width, height)


def _reach(event: dict) -> Box:
    """The event's resting rectangle together with everywhere its drift takes it."""
    x, y = event["rest_xy"]
    w, h = event["size"]
    dx, dy = event["drift_px"]
    box = Box(x, y, x + w, y + h)
    return box.union(box.shift(round(dx), round(dy))).expand(1)


def _overlaps_in_time(a: dict, b: dict) -> bool:
    return a["start_frame"] < b["end_frame"] and b["start_frame"] < a["end_frame"]


def stack_events(events: list[dict], width: int, height: int) -> None:
    """Move stacked events along their stack until co-visible members no longer overlap."""
    gap = round(STACK_GAP_FRAC * min(width, height))
    for anchor, direction in STACK_DIRECTION.items():
        members = [e for e in events if e["anchor"] == anchor and e["animation"]["kind"] != "border_arc"]
        placed: list[dict] = []
        for ev in sorted(members, key=lambda e: (e["start_frame"], e["id"])):
            x, y0 = ev["rest_xy"]
            busy = [p for p in placed if _overlaps_in_time(p, ev)]
            # candidate slots: just past each busy neighbour in the stack's direction of growth;
            # the farthest one clears them all, so the loop below always ends without overlap
            own = _reach(ev)
            reaches = [_reach(p) for p in busy]
            ends = {r.y2 + gap - own.y1 if direction > 0 else r.y1 - gap - own.y2 for r in reaches}
            offsets = [0] + sorted((o for o in ends if o * direction > 0), key=abs)
            for off in offsets:
                ev["rest_xy"] = [x, y0 + off]
                if not any(_reach(ev).intersect(_reach(p)).area for p in busy):
                    break
            ev["stack_offset"] = ev["rest_xy"][1] - y0
            placed.append(ev)


def plan_events(
    streams: SeedStreams, profile: SynthProfile, style: Style, picker: AssetPicker, weapon_rect: Box | None
) -> tuple[list[str], list[dict]]:
    """(the drawn categories, the planned events); events without a fitting asset are kept
    with `skipped` set so the record shows every draw."""
    width, height, fps = profile.width, profile.height, profile.fps
    categories = popup_categories(streams, profile, style) if profile.transients else []
    clip_s = profile.frame_count / fps
    events = []
    for k, category in enumerate(categories):
        prof = EVENT_PROFILES[category]
        ev = {"id": f"e{k:02d}_{category}", "category": category}
        drawn, label, pick = _pick_asset(picker, streams.rng("assets", "event", k), category, style)
        ev["asset_taxonomy_drawn"] = drawn
        if pick is None:
            ev["skipped"] = "no_eligible_asset"
            events.append(ev)
            continue
        cand = pick.candidate
        w, h = cand.size
        comp = streams.rng("composition", "event", k)
        anchor = prof.anchors[int(comp.integers(len(prof.anchors)))]
        rest = _rest_xy(anchor, comp, w, h, width, height, weapon_rect)
        timing = streams.rng("timing", "event", k)
        duration = min(clip_s, float(timing.uniform(*prof.duration_s)))
        start = float(timing.uniform(0.0, clip_s - duration))
        anim_rng = streams.rng("animation", "event", k)
        signs = anim_rng.choice([-1.0, 1.0], 2)
        ev.update(
            {
                "label": label,
                "role": category,
                "asset_id": cand.asset_id,
                "asset_source": cand.asset.source,
                "aspect_fallback": cand.aspect_fallback,
                "matching": pick.matching,
                "size": [w, h],
                "anchor": anchor,
                "rest_xy": [round(rest[0]), round(rest[1])],
                "stack_offset": 0,
                "start_s": start,
                "duration_s": duration,
                # frames whose time i / fps falls in [start, start + duration)
                "start_frame": int(np.ceil(start * fps - 1e-9)),
                "end_frame": int(np.ceil((start + duration) * fps - 1e-9)),
                "fade_s": prof.fade_s,
                "table_opacity": prof.opacity,
                "opacity": prof.opacity * (style.alpha_hud if profile.event_opacity_times_hud else 1.0),
                "drift_px": [float(signs[0] * prof.drift[0] * width), float(signs[1] * prof.drift[1] * height)],
                "animation": sample_animation(anim_rng, duration, prof.fade_s, (w, h), rest, width, height),
            }
        )
        events.append(ev)
    stack_events([e for e in events if "skipped" not in e], width, height)
    return categories, events
