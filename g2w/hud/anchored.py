"""World-anchored HUD elements: name tags, objective markers and damage numbers that follow a
tracked point of the world.

A name tag is drawn where a player's position projects onto the screen, so it moves with the
world, and every cue that says "static means UI" misses it. Synthesis has no 3-D scene to project,
but the clean clip is a real moving world: `AnchorTracker` picks a corner-like point of the clean
frame (`cv2.goodFeaturesToTrack` inside the element's search region, the element's recorded rank
choosing among them) and follows it frame to frame with pyramidal Lucas-Kanade flow, checked
forwards and backwards. Where the check fails or the point leaves the frame the element is hidden
(the player went behind a wall); a name tag or marker comes back on a new point after a short gap,
a damage number does not.

`plan_anchored` makes the random decisions (which elements, at the rates of the HUD survey, with
their text, shape, style, timing and search region); the tracker fills the record's `tracks` (one
[x, y] or null per frame and element) while the clip is rendered, in frame order. Layers read the
tracks, so a rendered record replays exactly without the clip. A record planned without a clip has
no world to anchor to and draws none of them.

Each element is one layer per frame and one annotation instance, labelled world_context.
"""

from __future__ import annotations

import cv2
import numpy as np

from g2w.fonts import FACES
from g2w.hud.seeds import SeedStreams
from g2w.hud.survey import RATES
from g2w.hud.text_blocks import NAMES, TEAM_COLOURS, text_style
from g2w.hud.text_draw import over, text_patch

KINDS = ("name_tag", "marker", "damage")
LABEL = "world_context"
RATE_KEYS = {"name_tag": "name_tags", "marker": "markers", "damage": "damage_numbers"}
# Ours: how many of each, their sizes (of the frame height), where their points are searched
# (fractions of the frame), and the damage numbers' timing and rise.
COUNT = {"name_tag": (1, 3), "marker": (1, 2)}
SIZE = {"name_tag": (0.014, 0.026), "marker": (0.022, 0.045), "damage": (0.022, 0.04)}
REGION = (0.12, 0.15, 0.88, 0.85)
DAMAGE_PER_S = (0.8, 3.0)
DAMAGE_LIFE_S = (0.5, 1.1)
DAMAGE_RISE = (0.03, 0.09)  # of the frame height over its life
DAMAGE_FADE = 0.4  # fades out over the last 40 % of its life
GAP = (0.005, 0.02)  # name tag above its point, of the frame height
MARKER_SHAPES = ("diamond", "chevron", "ring", "square", "pin")
MARKER_COLOURS = ([255, 210, 60], [255, 255, 255], [80, 220, 255], [255, 90, 80], [140, 255, 120])
DAMAGE_COLOURS = ([255, 255, 255], [255, 220, 70], [255, 120, 60], [255, 60, 60])
DISTANCE_TEXT = 0.5  # share of markers with a distance readout under them
REACQUIRE_FRAMES = 8  # a lost name tag or marker comes back on a new point after this many frames
FB_MAX_PX = 0.75  # forward-backward error bound, in tracking pixels
LK = {"winSize": (21, 21), "maxLevel": 3, "criteria": (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03)}


def _choice(rng, items):
    return items[int(rng.integers(len(items)))]


def _bold_face(rng) -> str:
    return _choice(rng, [n for n in FACES if "bold" in n])


def plan_anchored(streams: SeedStreams, width: int, height: int, fps: float, frame_count: int, threshold: int) -> dict:
    """Name tags, markers and damage numbers of one sample, with empty tracks."""
    elements = []
    for kind in ("name_tag", "marker"):
        rng = streams.rng("composition", "anchored", kind)
        if rng.random() >= RATES[RATE_KEYS[kind]]:
            continue
        for k in range(int(rng.integers(COUNT[kind][0], COUNT[kind][1] + 1))):
            size = max(8, round(float(rng.uniform(*SIZE[kind])) * height))
            el = {"id": f"a_{kind}{k}", "kind": kind, "start_frame": 0, "end_frame": frame_count}
            el["rank"] = float(rng.uniform())
            if kind == "name_tag":
                face = _choice(rng, [n for n, (_, _, c) in FACES.items() if c == "sans"])
                el["style"] = text_style(rng, size, face, False, threshold)
                el["spans"] = [[_choice(rng, NAMES), list(_choice(rng, TEAM_COLOURS))]]
                el["gap"] = round(float(rng.uniform(*GAP)) * height)
            else:
                el["shape"] = _choice(rng, MARKER_SHAPES)
                el["size"] = size
                el["color"] = list(_choice(rng, MARKER_COLOURS))
                el["opacity"] = float(rng.uniform(0.7, 1.0))
                el["distance"] = None
                if rng.random() < DISTANCE_TEXT:
                    face = _choice(rng, [n for n, (_, _, c) in FACES.items() if c != "serif"])
                    el["style"] = text_style(rng, max(8, round(size * 0.55)), face, False, threshold)
                    el["distance"] = f"{int(rng.integers(5, 400))}m"
            elements.append(el)
    rng = streams.rng("composition", "anchored", "damage")
    if rng.random() < RATES["damage_numbers"]:
        timing = streams.rng("timing", "anchored", "damage")
        rate, t, k = float(timing.uniform(*DAMAGE_PER_S)), 0.0, 0
        face, colour = _bold_face(rng), list(_choice(rng, DAMAGE_COLOURS))
        size = max(8, round(float(rng.uniform(*SIZE["damage"])) * height))
        style = text_style(rng, size, face, False, threshold)
        while True:
            t += float(timing.exponential(1.0 / rate))
            start = round(t * fps)
            if start >= frame_count:
                break
            life = max(2, round(float(timing.uniform(*DAMAGE_LIFE_S)) * fps))
            value = int(timing.integers(5, 150))
            text = f"-{value}" if timing.random() < 0.3 else str(value) + ("!" if timing.random() < 0.15 else "")
            elements.append(
                {
                    "id": f"a_damage{k}",
                    "kind": "damage",
                    "start_frame": start,
                    "end_frame": min(frame_count, start + life),
                    "life": life,
                    "rank": float(timing.uniform()),
                    "style": style,
                    "spans": [[text, colour]],
                    "rise": round(float(timing.uniform(*DAMAGE_RISE)) * height),
                    "drift": round(float(timing.uniform(-0.5, 0.5)) * size),
                }
            )
            k += 1
    return {
        "rates": {kind: RATES[RATE_KEYS[kind]] for kind in KINDS},
        "region": list(REGION),
        "elements": elements,
        "tracks": None,
    }


class AnchorTracker:
    """Fills `plan["tracks"]` frame by frame from the clean clip's luma (frames in order)."""

    def __init__(self, plan: dict, width: int, height: int, frame_count: int):
        self.plan, self.width, self.height = plan, width, height
        self.scale = 2 if width > 640 else 1  # track on every other pixel of large frames
        plan["tracks"] = {el["id"]: [None] * frame_count for el in plan["elements"]}
        self.done = 0
        self.points: dict[str, np.ndarray | None] = {}
        self.lost_at: dict[str, int] = {}
        self.prev: np.ndarray | None = None

    def _small(self, luma: np.ndarray) -> np.ndarray:
        s = self.scale
        return np.ascontiguousarray(luma[: self.height : s, : self.width : s])

    def _acquire(self, small: np.ndarray, rank: float) -> np.ndarray | None:
        h, w = small.shape
        fx1, fy1, fx2, fy2 = self.plan["region"]
        x1, y1, x2, y2 = int(fx1 * w), int(fy1 * h), int(fx2 * w), int(fy2 * h)
        found = cv2.goodFeaturesToTrack(small[y1:y2, x1:x2], 40, 0.02, max(4, min(w, h) // 30))
        if found is None or len(found) == 0:
            return None
        pts = sorted((float(p[0][0]) + x1, float(p[0][1]) + y1) for p in found)
        return np.array(pts[min(len(pts) - 1, int(rank * len(pts)))], np.float32)

    def step(self, index: int, luma: np.ndarray) -> None:
        if index != self.done:
            raise ValueError(f"anchored elements are tracked in frame order: expected frame {self.done}, got {index}")
        small = self._small(luma)
        h, w = small.shape
        live = [el for el in self.plan["elements"] if el["start_frame"] <= index < el["end_frame"]]
        moving = [el["id"] for el in live if self.points.get(el["id"]) is not None]
        if moving and self.prev is not None:
            p0 = np.stack([self.points[i] for i in moving]).reshape(-1, 1, 2)
            p1, st1, _ = cv2.calcOpticalFlowPyrLK(self.prev, small, p0, None, **LK)
            back, st2, _ = cv2.calcOpticalFlowPyrLK(small, self.prev, p1, None, **LK)
            err = np.linalg.norm((back - p0).reshape(-1, 2), axis=1)
            for k, iid in enumerate(moving):
                x, y = (float(v) for v in p1[k, 0])
                ok = st1[k, 0] == 1 and st2[k, 0] == 1 and err[k] <= FB_MAX_PX
                if ok and 1 <= x < w - 1 and 1 <= y < h - 1:
                    self.points[iid] = np.array([x, y], np.float32)
                else:
                    self.points[iid], self.lost_at[iid] = None, index
        for el in live:
            iid = el["id"]
            if self.points.get(iid) is None:
                lost = self.lost_at.get(iid)
                may = lost is None or (el["kind"] != "damage" and index - lost >= REACQUIRE_FRAMES)
                if may:
                    self.points[iid] = self._acquire(small, el["rank"])
                    if self.points[iid] is not None:
                        self.lost_at.pop(iid, None)
            pt = self.points.get(iid)
            if pt is not None:
                self.plan["tracks"][iid][index] = [
                    round(float(pt[0]) * self.scale, 2),
                    round(float(pt[1]) * self.scale, 2),
                ]
        for el in self.plan["elements"]:
            if el["end_frame"] == index + 1:
                self.points.pop(el["id"], None)
        self.prev = small
        self.done += 1


def _shape_alpha(shape: str, size: int) -> np.ndarray:
    """(h, w) float32 coverage of a marker icon, anti-aliased at 4x."""
    s = 4
    n = size * s
    m = np.zeros((n, n), np.uint8)
    c = n / 2
    if shape == "diamond":
        pts = [(c, 0), (n - 1, c), (c, n - 1), (0, c)]
        cv2.fillPoly(m, [np.array(pts, np.int32)], 255)
    elif shape == "chevron":
        pts = [(0, 0), (c, n * 0.45), (n - 1, 0), (c, n - 1)]
        cv2.fillPoly(m, [np.array(pts, np.int32)], 255)
    elif shape == "ring":
        cv2.circle(m, (int(c), int(c)), int(c - 1), 255, -1)
        cv2.circle(m, (int(c), int(c)), int(c * 0.55), 0, -1)
    elif shape == "square":
        cv2.rectangle(m, (int(n * 0.1), int(n * 0.1)), (int(n * 0.9), int(n * 0.9)), 255, -1)
        cv2.rectangle(m, (int(n * 0.3), int(n * 0.3)), (int(n * 0.7), int(n * 0.7)), 0, -1)
    else:  # pin: a disc over a point
        cv2.circle(m, (int(c), int(n * 0.35)), int(n * 0.33), 255, -1)
        cv2.fillPoly(m, [np.array([(n * 0.2, n * 0.5), (n * 0.8, n * 0.5), (c, n - 1)], np.int32)], 255)
    return cv2.resize(m, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def element_patch(el: dict) -> np.ndarray:
    """(h, w, 4) uint8 RGBA of an element at full opacity, alpha not yet thresholded."""
    if el["kind"] != "marker":
        return text_patch(el["spans"], {**el["style"], "threshold": 0})
    size = el["size"]
    icon = _shape_alpha(el["shape"], size)
    label = None
    if el["distance"]:
        label = text_patch([[el["distance"], el["color"]]], {**el["style"], "threshold": 0})
    lh, lw = (label.shape[:2]) if label is not None else (0, 0)
    w, h = max(size + 2, lw), size + 2 + lh
    out = np.zeros((h, w, 4), np.float32)
    ix = (w - size - 2) // 2
    rim = np.zeros((h, w), np.float32)  # a dark one-pixel rim keeps the icon visible on bright worlds
    rim[: size + 2, ix : ix + size + 2] = cv2.dilate(np.pad(icon, 1), np.ones((3, 3), np.uint8))
    over(out, [0, 0, 0], rim * 0.6)
    full = np.zeros((h, w), np.float32)
    full[1 : size + 1, ix + 1 : ix + 1 + size] = icon
    over(out, el["color"], full * el["opacity"])
    if label is not None:
        lx = (w - lw) // 2
        region = out[size + 2 :, lx : lx + lw]
        over(region, label[..., :3].astype(np.float32), label[..., 3].astype(np.float32) / 255.0)
    return np.dstack([np.rint(np.clip(out[..., :3], 0, 255)), np.rint(out[..., 3] * 255)]).astype(np.uint8)


def placement(el: dict, point, index: int, patch_w: int, patch_h: int) -> tuple[float, float, float]:
    """(x, y, fade factor) of an element's patch with its point at `point` at frame `index`."""
    px, py = point
    if el["kind"] == "name_tag":
        return px - patch_w / 2, py - el["gap"] - patch_h, 1.0
    if el["kind"] == "marker":
        return px - patch_w / 2, py - el["size"] - 1, 1.0
    progress = (index - el["start_frame"]) / el["life"]
    factor = 1.0 if progress < 1 - DAMAGE_FADE else max(0.0, (1 - progress) / DAMAGE_FADE)
    return px - patch_w / 2 + el["drift"] * progress, py - patch_h - el["rise"] * progress, factor
