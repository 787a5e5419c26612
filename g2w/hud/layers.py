"""Evaluating a synthesis record at one frame: which RGBA patches are drawn, and where.

`LayerSource(record, images)` is the single place that turns the record into pixels. The
renderer composites its layers and the annotator measures them, so the video, the mask and the
boxes cannot disagree. Each layer is one annotation instance (a persistent widget, an inventory
icon as a child of its bar, or a transient event); its alpha is already the composited alpha
(opacity, fades and wipes applied, values below the alpha threshold zeroed). Opacities are the
record's: alpha_HUD for persistent widgets (Eq. 7), the inventory's icon opacity for icons (E.2:
0.96 alone) and each event's own opacity (Table 13, times alpha_HUD only if the profile asked).

Translucent backings (bands and panels, `backing.py`) are layers too, drawn first, under every
widget; a panel that follows a moving widget moves with it. Their instances carry `opacity` (the
fill's) and `translucent: true`.

Text blocks (kill feed, chat, console, corner readouts, `text_blocks.py`) are layers as well, one
per visible line, drawn over the widgets; a line's instance carries its text, and, when it sits on
a translucent strip, `translucent: true` with the strip's opacity.

World-anchored elements (name tags, markers, damage numbers, `anchored.py`) are placed at their
tracked point of the clean clip each frame. `frame(index, luma)` tracks the point on the clean
frame's luma while a clip is rendered (frames in order) and writes the track into the record; a
rendered record replays its tracks without the clip. A small procedural crosshair (`crosshairs.py`)
replaces a crosshair widget's asset when the record says so.

Draw order: backings, then persistent widgets by increasing priority (the crosshair ends on top), each bar's
icons right after it, then text lines block by block, then anchored elements, then events by start.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from g2w.hud.anchored import LABEL as ANCHORED_LABEL
from g2w.hud.anchored import AnchorTracker, element_patch, placement
from g2w.hud.animation import animation_state, wipe_reveal
from g2w.hud.backing import backing_patch
from g2w.hud.crosshairs import crosshair_patch
from g2w.hud.layout import motion_offset
from g2w.hud.patches import resize_rgba, with_opacity
from g2w.hud.plan import rendered_anchored, rendered_backings, rendered_events, rendered_text_blocks, rendered_widgets
from g2w.hud.status_bars import apply_fill, draw_procedural_panel, fill_pixels, level, procedural_panel_layout
from g2w.hud.text_blocks import PERSISTENT_KINDS, line_patch, text_layers


@dataclass(frozen=True)
class Layer:
    instance: str
    rgba: np.ndarray  # (h, w, 4) uint8, alpha as composited
    x: int  # top-left in frame pixels; may lie outside the frame
    y: int


def icon_instance_id(bar_id: str, state: int, slot: int) -> str:
    return f"{bar_id}/s{state}_slot{slot}"


class LayerSource:
    """Frame-by-frame layers of one record; `images(asset_id)` returns an asset's RGBA pixels."""

    def __init__(self, record: dict, images: Callable[[str], np.ndarray]):
        self.record = record
        self.images = images
        video = record["video"]
        self.width, self.height, self.fps = video["width"], video["height"], video["fps"]
        self.threshold = record["profile"]["alpha_threshold"]
        self.alpha_hud = record["style"]["alpha_hud"]
        self.widgets = rendered_widgets(record)
        self.backings = rendered_backings(record)
        self._motion = {wd["id"]: wd["motion"] for wd in self.widgets}
        self.events = rendered_events(record)
        self.text_blocks = rendered_text_blocks(record)
        self.anchored = rendered_anchored(record)
        self._tracker: AnchorTracker | None = None
        self._cache: dict = {}

    # ---- instance table ---------------------------------------------------------------------
    def instances(self) -> dict[str, dict]:
        """Every instance that may appear, by id, in draw order."""
        out = {}
        for b in self.backings:
            out[b["id"]] = {
                "id": b["id"],
                "label": b["label"],
                "role": b["role"],
                "kind": "persistent",
                "asset_id": None,
                "asset_source": "procedural_backing",
                "parent": None,
                "opacity": b["opacity"],
                "translucent": True,
            }
        for wd in self.widgets:
            out[wd["id"]] = {
                "id": wd["id"],
                "label": wd["label"],
                "role": wd["role"],
                "kind": "persistent",
                "asset_id": wd["asset_id"],
                "asset_source": wd["asset_source"],
                "parent": None,
            }
            for k, state in enumerate(wd.get("inventory", {}).get("states", [])):
                for icon in state["icons"]:
                    iid = icon_instance_id(wd["id"], k, icon["slot"])
                    out[iid] = {
                        "id": iid,
                        "label": wd["label"],
                        "role": "icon",
                        "kind": "child",
                        "asset_id": icon["asset_id"],
                        "asset_source": self._source(icon["asset_id"]),
                        "parent": wd["id"],
                    }
        for block in self.text_blocks:
            strip = block["style"]["strip"]
            persistent = block["kind"] in PERSISTENT_KINDS
            for line in block["lines"]:
                if line["id"] in out:
                    continue
                out[line["id"]] = {
                    "id": line["id"],
                    "label": block["label"],
                    "role": block["kind"],
                    "kind": "persistent" if persistent else "transient",
                    "asset_id": None,
                    "asset_source": "procedural_text",
                    "parent": None,
                    **({} if persistent else {"text": "".join(t for t, _ in line["spans"])}),
                    **({"translucent": True, "opacity": strip["opacity"]} if strip else {}),
                }
        for el in (self.anchored or {}).get("elements", []):
            out[el["id"]] = {
                "id": el["id"],
                "label": ANCHORED_LABEL,
                "role": el["kind"],
                "kind": "transient" if el["kind"] == "damage" else "persistent",
                "asset_id": None,
                "asset_source": "procedural_anchored",
                "parent": None,
                **({"text": "".join(t for t, _ in el["spans"])} if "spans" in el else {}),
            }
        for ev in self.events:
            out[ev["id"]] = {
                "id": ev["id"],
                "label": ev["label"],
                "role": ev["role"],
                "kind": "transient",
                "asset_id": ev["asset_id"],
                "asset_source": ev["asset_source"],
                "parent": None,
            }
        return out

    def _source(self, asset_id: str) -> str:
        return self.record["library"]["assets"][asset_id]["source"]

    # ---- patches ----------------------------------------------------------------------------
    def _cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def _fitted(self, asset_id: str, w: int, h: int) -> np.ndarray:
        return self._cached(("fit", asset_id, w, h), lambda: resize_rgba(self.images(asset_id), w, h))

    def _widget_patch(self, wd: dict, t: float) -> np.ndarray:
        w, h = wd["size"]
        status = wd.get("status", {})
        mode = status.get("mode", "static")
        if "crosshair" in wd:
            return self._cached(
                ("w", wd["id"]), lambda: with_opacity(crosshair_patch(wd["crosshair"]), self.alpha_hud, self.threshold)
            )
        if mode == "static":
            return self._cached(
                ("w", wd["id"]),
                lambda: with_opacity(self._fitted(wd["asset_id"], w, h), self.alpha_hud, self.threshold),
            )
        offsets = status["offsets_s"]
        if mode == "procedural":
            bars = procedural_panel_layout(w, h)["bars"]
        else:
            bars = status["bars"]
        values = [level(bar["kind"], t, offsets[bar["kind"]]) for bar in bars]
        fills = tuple(fill_pixels(b["box"][2] - b["box"][0], v) for b, v in zip(bars, values))
        if mode == "procedural":
            shown = tuple(round(100 * v) for v in values)
            key = ("panel", wd["id"], fills, shown)
            make_base = lambda: draw_procedural_panel(w, h, wd["panel_palette"], shown)  # noqa: E731
        else:
            key = ("bars", wd["id"], fills)
            make_base = lambda: self._fitted(wd["asset_id"], w, h)  # noqa: E731
        return self._cached(
            key, lambda: with_opacity(apply_fill(make_base(), bars, fills), self.alpha_hud, self.threshold)
        )

    def _icon_patch(self, icon: dict, opacity: float) -> np.ndarray:
        w, h = icon["size"]
        return self._cached(
            ("icon", icon["asset_id"], w, h),
            lambda: with_opacity(self._fitted(icon["asset_id"], w, h), opacity, self.threshold),
        )

    # ---- per frame --------------------------------------------------------------------------
    def frame(self, index: int, luma: np.ndarray | None = None) -> list[Layer]:
        """The layers drawn at frame `index`. `luma` (the clean frame's luma, (h, w) uint8) is
        needed while anchored elements are still being tracked, frames in order."""
        t = index / self.fps
        layers = []
        for b in self.backings:
            dx, dy = motion_offset(self._motion[b["follows"]], t) if b["follows"] else (0, 0)
            patch = self._cached(("backing", b["id"]), lambda: backing_patch(b, self.threshold))  # noqa: B023
            layers.append(Layer(b["id"], patch, b["rect"][0] + dx, b["rect"][1] + dy))
        for wd in self.widgets:
            dx, dy = motion_offset(wd["motion"], t)
            x, y = wd["xy"][0] + dx, wd["xy"][1] + dy
            layers.append(Layer(wd["id"], self._widget_patch(wd, t), x, y))
            inventory = wd.get("inventory", {})
            for k, state in enumerate(inventory.get("states", [])):
                if state["start_s"] <= t < state["end_s"]:
                    for icon in state["icons"]:
                        ox, oy = icon["offset"]
                        patch = self._icon_patch(icon, inventory["icon_opacity"])
                        layers.append(Layer(icon_instance_id(wd["id"], k, icon["slot"]), patch, x + ox, y + oy))
        for block in self.text_blocks:
            for iid, rgba, x, y in text_layers(block, index, self._line_patch):
                layers.append(Layer(iid, rgba, x, y))
        layers.extend(self._anchored_layers(index, luma))
        for ev in self.events:
            if ev["start_frame"] <= index < ev["end_frame"]:
                layer = self._event_layer(ev, max(0.0, t - ev["start_s"]))
                if layer is not None:
                    layers.append(layer)
        return [layer for layer in layers if layer.rgba[..., 3].any()]

    def _anchored_layers(self, index: int, luma: np.ndarray | None) -> list[Layer]:
        plan = self.anchored
        if not plan or not plan["elements"]:
            return []
        if plan.get("tracked_frames") != self.record["video"]["frame_count"]:  # still being tracked
            if luma is None:
                return []  # planned without a clip: there is no world to anchor to
            if self._tracker is None:
                self._tracker = AnchorTracker(plan, self.width, self.height, self.record["video"]["frame_count"])
            self._tracker.step(index, luma)
            plan["tracked_frames"] = self._tracker.done
        out = []
        for el in plan["elements"]:
            point = plan["tracks"][el["id"]][index]
            if point is None or not el["start_frame"] <= index < el["end_frame"]:
                continue
            base = self._cached(("anchored", el["id"]), lambda: element_patch(el))  # noqa: B023
            h, w = base.shape[:2]
            x, y, factor = placement(el, point, index, w, h)
            if factor == 1.0:
                patch = self._cached(("anchored", el["id"], 1.0), lambda: with_opacity(base, 1.0, self.threshold))  # noqa: B023
            else:
                patch = with_opacity(base, factor, self.threshold)
            out.append(Layer(el["id"], patch, round(x), round(y)))
        return out

    def _line_patch(self, block: dict, line: dict, factor: float) -> np.ndarray:
        base = self._cached(("text", line["id"], line["state"]), lambda: line_patch(block, line))
        if factor == 1.0:
            return self._cached(
                ("text", line["id"], line["state"], 1.0), lambda: with_opacity(base, 1.0, self.threshold)
            )
        return with_opacity(base, factor, self.threshold)

    def _event_layer(self, ev: dict, t: float) -> Layer | None:
        anim, duration = ev["animation"], ev["duration_s"]
        state = animation_state(anim, min(t, duration), duration, self.width, self.height)
        w, h = ev["size"]
        base = self._fitted(ev["asset_id"], w, h)
        pw, ph = w, h
        if state.scale != 1.0:
            pw, ph = max(1, round(w * state.scale)), max(1, round(h * state.scale))
            base = resize_rgba(base, pw, ph)
        opacity = ev["opacity"] * state.opacity
        if state.wipe is not None:
            opacity = wipe_reveal(anim, state.wipe[0], state.wipe[1], pw, ph) * np.float32(opacity)
        if np.max(opacity) <= 0:
            return None
        progress = t / duration
        rx, ry = ev["rest_xy"]
        x = rx + ev["drift_px"][0] * progress + state.dx + (w - pw) / 2
        y = ry + ev["drift_px"][1] * progress + state.dy + (h - ph) / 2
        return Layer(ev["id"], with_opacity(base, opacity, self.threshold), round(x), round(y))
