"""Planning one synthetic sample: every random decision, made once, written into the record.

`plan_sample` turns (seed streams, profile, asset library, optionally the clip's appearance)
into the synthesis record of Appendix F: style and formation, the persistent widgets with their
assets, anchors, jitter, collision-adjusted positions, suppression and motion, status-bar and
inventory modes with their signals and states, the transient events with timing, anchors,
stacking, drift and animation parameters, and the aesthetic-matching diagnostics. Rendering and
annotation read only this record (and the asset PNGs it names), so a sample is reproducible
from its record alone.
"""

from __future__ import annotations

import hashlib

from g2w.hud.aesthetic import AestheticScorer, NeuralDescriptor, VideoAppearance
from g2w.hud.anchored import plan_anchored
from g2w.hud.assets import AssetLibrary
from g2w.hud.backing import plan_backings
from g2w.hud.crosshairs import crosshair_patch, plan_small_crosshair
from g2w.hud.events import plan_events
from g2w.hud.inventory import icon_pool, sample_states
from g2w.hud.layout import free_anchor, resolve_collisions, sample_jitter, sample_motion, spawned_labels
from g2w.hud.patches import resize_rgba, support_box, with_opacity
from g2w.hud.priors import Style, anchor_xy, choose_style, fit, formation_anchor, limits
from g2w.hud.profile import DEFAULT_ANCHORS, FREE_ANCHOR_BOX, ICON_OPACITY, ROLE_PRIORS, SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.hud.selection import AssetPicker, role_rule
from g2w.hud.status_bars import PANEL_PALETTES, SIGNALS, draw_procedural_panel, scale_bars
from g2w.hud.text_blocks import plan_text_blocks
from g2w.taxonomy import PERSISTENT_LABEL_ROLES, TAXONOMY_VERSION
from g2w.types import Box

# 2: icon and event opacities as the paper gives them; 3: translucent backings; 4: text blocks,
# world-anchored elements with their tracks, small procedural crosshairs
RECORD_VERSION = 4
PANEL_ASPECT = 4.0  # procedural HP/STM panel: width / height (ours)
PANEL_WIDTH = 0.20  # of the frame width before the style's scales (ours)


def _panel_size(style: Style, width: int, height: int) -> tuple[int, int]:
    prior = ROLE_PRIORS["health"]
    scale = style.ui_scale * style.role_scale("health")
    w = PANEL_WIDTH * width * scale
    return fit((w, w / PANEL_ASPECT), limits(prior.w_max, prior.h_max, scale, width, height))


def _anchor(
    streams: SeedStreams, label: str, role: str, center, style: Style, profile: SynthProfile, w: int, h: int
) -> tuple[dict, tuple[float, float]]:
    """Where the widget wants to be before jitter: recorded centre, else free or formation anchor."""
    width, height = profile.width, profile.height
    if center is not None:
        cx, cy = center[0] * width, center[1] * height
        return {"kind": "recorded", "center": [center[0], center[1]]}, (cx - w / 2, cy - h / 2)
    if role == "objective_marker":
        fx, fy = free_anchor(streams, label, FREE_ANCHOR_BOX)
        return {"kind": "free", "f": [fx, fy]}, anchor_xy(fx, fy, w, h, width, height)
    fx, fy = formation_anchor(role, style.formation, DEFAULT_ANCHORS)
    return {"kind": "formation", "f": [fx, fy]}, anchor_xy(fx, fy, w, h, width, height)


def _support(
    library: AssetLibrary, asset_id: str | None, size, make_patch, alpha_hud: float, threshold: int
) -> list[int]:
    """Alpha support of a widget as composited (opacity applied), memoized per asset and size.

    `make_patch()` draws the fitted RGBA when needed; procedural panels (no asset id) are not
    memoized.
    """
    key = ("support", asset_id, tuple(size), alpha_hud, threshold)
    if asset_id is not None and key in library.memo:
        return library.memo[key]
    support = support_box(with_opacity(make_patch(), alpha_hud, threshold)[..., 3], 1).to_list()
    if asset_id is not None:
        library.memo[key] = support
    return support


def _plan_widget(
    label: str, streams: SeedStreams, profile: SynthProfile, style: Style, picker: AssetPicker, library: AssetLibrary
) -> dict:
    width, height = profile.width, profile.height
    rules = {role: role_rule(role, style) for role in PERSISTENT_LABEL_ROLES[label]}
    pick = picker.pick(streams.rng("assets", "persistent", label), label, rules)
    wd = {"id": f"p_{label}", "label": label, "kind": "persistent", "opacity": style.alpha_hud}
    if pick is None and label != "player_status":
        return {**wd, "skipped": "no_eligible_asset"}
    if pick is None:  # E.1: a procedural HP/STM panel when no status asset fits
        size = _panel_size(style, width, height)
        palette = int(streams.rng("assets", "panel").integers(len(PANEL_PALETTES)))
        patch = lambda: draw_procedural_panel(size[0], size[1], palette, (100, 100))  # noqa: E731
        wd.update(
            role="health",
            asset_id=None,
            asset_source="procedural_panel",
            aspect_fallback=False,
            matching=None,
            center=None,
            panel_palette=palette,
        )
    else:
        cand = pick.candidate
        size = cand.size
        patch = lambda: resize_rgba(library.image(cand.asset_id), *size)  # noqa: E731
        wd.update(
            role=cand.role,
            asset_id=cand.asset_id,
            asset_source=cand.asset.source,
            aspect_fallback=cand.aspect_fallback,
            matching=pick.matching,
            center=cand.asset.center,
        )
    support = _support(library, wd["asset_id"], size, patch, style.alpha_hud, profile.alpha_threshold)
    anchor, xy = _anchor(streams, label, wd["role"], wd.pop("center"), style, profile, *size)
    jitter = sample_jitter(streams, label, profile.jitter, width, height)
    wd.update(
        size=list(size),
        support=support,
        anchor=anchor,
        jitter=jitter,
        preferred=[xy[0] + jitter[0], xy[1] + jitter[1]],
        priority=ROLE_PRIORS[wd["role"]].priority,
        motion=sample_motion(streams, label, wd["role"], width, height),
    )
    return wd


def _status(wd: dict, streams: SeedStreams, profile: SynthProfile, library: AssetLibrary) -> dict:
    rng = streams.rng("animation", "status", wd["label"])
    offsets = {kind: float(rng.uniform(0, SIGNALS[kind][0])) for kind in SIGNALS}
    if wd["asset_id"] is None:
        return {"mode": "procedural", "offsets_s": offsets}
    asset = library.get(wd["asset_id"])
    bars = asset.structure.get("bars") or []
    if not bars or not profile.dynamic_status:
        return {"mode": "static"}
    w, h = wd["size"]
    return {"mode": "dynamic", "bars": scale_bars(bars, w / asset.width, h / asset.height), "offsets_s": offsets}


def _inventory(wd: dict, streams: SeedStreams, profile: SynthProfile, library: AssetLibrary) -> dict:
    asset = library.get(wd["asset_id"])
    slots = asset.structure.get("slots") or []
    pool = icon_pool(library, streams, profile.include_unverified) if slots and profile.inventory_states else []
    if not pool:
        return {"mode": "static"}
    sx, sy = wd["size"][0] / asset.width, wd["size"][1] / asset.height
    scaled = [[round(x1 * sx), round(y1 * sy), round(x2 * sx), round(y2 * sy)] for x1, y1, x2, y2 in slots]
    states = sample_states(streams, library, scaled, profile.frame_count / profile.fps, pool)
    return {
        "mode": "states",
        "slots": scaled,
        "icon_pool_size": len(pool),
        "icon_opacity": ICON_OPACITY,
        "states": states,
    }


def _small_crosshair(wd: dict, streams: SeedStreams, style: Style, profile: SynthProfile) -> None:
    """Replace a placed crosshair widget by a small procedural one with the same centre."""
    spec = plan_small_crosshair(streams, profile.width)
    if spec is None:
        return
    patch = crosshair_patch(spec)
    h, w = patch.shape[:2]
    cx, cy = wd["xy"][0] + wd["size"][0] / 2, wd["xy"][1] + wd["size"][1] / 2
    wd.update(
        replaced_asset=wd["asset_id"],
        asset_id=None,
        asset_source="procedural_crosshair",
        crosshair=spec,
        size=[w, h],
        support=support_box(with_opacity(patch, style.alpha_hud, profile.alpha_threshold)[..., 3], 1).to_list(),
        xy=[round(cx - w / 2), round(cy - h / 2)],
    )


def _provenance(record: dict, library: AssetLibrary) -> dict:
    """Every asset the sample draws, with its image path and content hash."""
    ids = {w["asset_id"] for w in record["persistent"] if w.get("asset_id")}
    ids |= {e["asset_id"] for e in record["events"] if e.get("asset_id")}
    for w in record["persistent"]:
        for state in w.get("inventory", {}).get("states", []):
            ids |= {icon["asset_id"] for icon in state["icons"]}
    out = {}
    for aid in sorted(ids):
        asset = library.get(aid)
        entry = {
            "label": asset.label,
            "role": asset.role,
            "source": asset.source,
            "extraction_method": asset.extraction_method,
            "path": f"images/{aid}.png",
        }
        if library.root is not None:
            with open(library.image_path(aid), "rb") as f:
                entry["sha1"] = hashlib.sha1(f.read()).hexdigest()
        out[aid] = entry
    return {"root": library.root, "assets": out}


def plan_sample(
    streams: SeedStreams,
    profile: SynthProfile,
    library: AssetLibrary,
    *,
    sample_id: str = "",
    clip_id: str = "",
    appearance: VideoAppearance | None = None,
    neural: NeuralDescriptor | None = None,
) -> dict:
    """The full synthesis record of one sample (JSON-ready)."""
    width, height = profile.width, profile.height
    style = choose_style(profile, streams.rng("composition", "style"))
    scorer = AestheticScorer(appearance, neural) if profile.aesthetic and appearance is not None else None
    picker = AssetPicker(library, profile, scorer)
    spawned = spawned_labels(streams)
    widgets = [_plan_widget(label, streams, profile, style, picker, library) for label, on in spawned.items() if on]
    placeable = [w for w in widgets if "skipped" not in w]
    resolve_collisions(placeable, width, height, profile.collision_threshold)
    weapon_rect = None
    for wd in placeable:
        if wd["suppressed"]:
            continue
        if wd["label"] == "player_status":
            wd["status"] = _status(wd, streams, profile, library)
        if wd["label"] == "inventory":
            wd["inventory"] = _inventory(wd, streams, profile, library)
            weapon_rect = Box.from_list(wd["support"]).shift(*wd["xy"])
        if wd["label"] == "crosshair" and profile.small_crosshairs:
            _small_crosshair(wd, streams, style, profile)
    categories, events = plan_events(streams, profile, style, picker, weapon_rect)
    drawn = [w for w in placeable if not w["suppressed"]]
    backings = plan_backings(streams, drawn, width, height) if profile.backings else None
    occupied = [Box.from_list(w["support"]).shift(*w["xy"]) for w in drawn]
    text = (
        plan_text_blocks(streams, width, height, profile.fps, profile.frame_count, occupied, profile.alpha_threshold)
        if profile.text_blocks
        else None
    )
    anchored = (
        plan_anchored(streams, width, height, profile.fps, profile.frame_count, profile.alpha_threshold)
        if profile.anchored
        else None
    )
    record = {
        "version": RECORD_VERSION,
        "generator": "g2w.hud",
        "taxonomy_version": TAXONOMY_VERSION,
        "sample_id": sample_id,
        "clip_id": clip_id,
        **streams.to_dict(),
        "profile": profile.to_dict(),
        "video": {
            "width": width,
            "height": height,
            "fps": profile.fps,
            "frame_count": profile.frame_count,
            "duration_s": profile.frame_count / profile.fps,
        },
        "style": style.to_dict(),
        "spawned": spawned,
        "persistent": widgets,
        "popups": {"mode": profile.popups, "count": len(categories), "categories": categories},
        "events": events,
        "backings": backings,
        "text": text,
        "anchored": anchored,
        "aesthetic": None
        if scorer is None
        else {
            "keyframes": appearance.frame_indices,
            "neural": appearance.neural is not None,
        },
    }
    record["library"] = _provenance(record, library)
    return record


def rendered_widgets(record: dict) -> list[dict]:
    """Persistent widgets that are drawn (not skipped, not suppressed), bottom of the stack first."""
    live = [w for w in record["persistent"] if "skipped" not in w and not w["suppressed"]]
    return sorted(live, key=lambda w: (w["priority"], w["id"]))


def rendered_backings(record: dict) -> list[dict]:
    """Translucent bands and panels, drawn first (under every widget); none in older records."""
    return list((record.get("backings") or {}).get("elements", []))


def rendered_text_blocks(record: dict) -> list[dict]:
    """Kill feed, chat, console and corner text blocks, drawn over the widgets; none in older records."""
    return list((record.get("text") or {}).get("blocks", []))


def rendered_anchored(record: dict) -> dict | None:
    """The world-anchored elements' plan (with its tracks once rendered); None in older records."""
    return record.get("anchored")


def rendered_events(record: dict) -> list[dict]:
    return sorted((e for e in record["events"] if "skipped" not in e), key=lambda e: (e["start_frame"], e["id"]))
