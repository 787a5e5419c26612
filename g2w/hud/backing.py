"""Translucent backings: dark panels behind HUD widgets and full-width status bands at an edge.

Real HUDs often draw their digits and icons on a translucent background: a tinted band across
the bottom of the screen, or a dark panel behind a group of readouts. A detector trained only on
opaque widgets finds the digits and misses the band, which is most of the HUD's area, so the
synthesis draws such backings too. How often, and how opaque, comes from `SURVEY`, a table of
well-known games' default HUDs (docs/hud_synthesis.md prints it): the share of HUDs with a band,
the share of widgets on a panel, each game's opacity range, gradient and border shares.

`plan_backings` makes every random decision once, into the record: which widgets get a panel
(panels whose padded rectangles touch merge into one group panel), whether a band is drawn and
at which edge, and each backing's rectangle, opacity, fill (solid, vertical or horizontal
gradient between two dark, desaturated colours) and optional thin border. A panel behind a
moving widget follows that widget's motion. `backing_patch` draws one backing's RGBA; it is an
ordinary layer, drawn under the widgets, so it is in the mask and the clean/HUD pair stays an
exact alpha composite.
"""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np

from g2w.hud.seeds import SeedStreams
from g2w.types import Box

OPACITY_RANGE = (0.2, 0.7)  # translucent: what can still be un-blended and is not a plain widget
NO_PANEL_LABELS = ("crosshair", "world_context")  # drawn over the world itself, never on a panel


@dataclass(frozen=True)
class SurveyedHud:
    game: str
    style: str
    band: str | None  # "bottom" | "top": a full-width translucent band at that edge
    widgets: int  # persistent widgets of the default HUD
    panels: int  # of those, how many sit on a translucent panel
    opacity: tuple[float, float]  # range of its translucent backings' opacity (estimated)
    gradient: bool  # backings fade in colour across their extent
    border: bool  # backings have a thin outline


# Default HUDs as remembered from play and footage; counts and opacities are estimates, not
# measurements. Opaque backings (classic Doom's status bar, MOBA bottom consoles) are not
# counted: they are widgets, not translucent layers.
SURVEY: tuple[SurveyedHud, ...] = (
    SurveyedHud("Quake III Arena (team modes)", "arena FPS", "bottom", 5, 0, (0.30, 0.36), False, False),
    SurveyedHud("Cube 2: Sauerbraten", "arena FPS", None, 4, 0, (0.0, 0.0), False, False),
    SurveyedHud("Doom (2016)", "arena FPS", None, 5, 0, (0.0, 0.0), False, False),
    SurveyedHud("Xonotic (default HUD)", "arena FPS", None, 8, 8, (0.25, 0.40), False, True),
    SurveyedHud("Unreal Tournament 2004", "arena FPS", None, 6, 4, (0.40, 0.60), True, True),
    SurveyedHud("Counter-Strike: Global Offensive", "tactical FPS", None, 7, 5, (0.30, 0.60), True, False),
    SurveyedHud("Valorant", "tactical FPS", None, 6, 4, (0.40, 0.70), True, False),
    SurveyedHud("Team Fortress 2", "class shooter", None, 5, 3, (0.50, 0.70), False, False),
    SurveyedHud("Apex Legends", "battle royale", None, 7, 4, (0.30, 0.60), True, False),
    SurveyedHud("Fortnite", "battle royale", None, 8, 4, (0.30, 0.60), False, True),
    SurveyedHud("Call of Duty: Modern Warfare (2019)", "military FPS", None, 6, 1, (0.30, 0.50), True, False),
    SurveyedHud("Halo Infinite", "arena FPS", None, 5, 0, (0.0, 0.0), False, False),
    SurveyedHud("Dota 2", "MOBA", None, 6, 2, (0.55, 0.70), True, True),
    SurveyedHud("League of Legends", "MOBA", None, 6, 2, (0.50, 0.70), False, True),
    SurveyedHud("Forza Horizon 4", "racing", None, 5, 3, (0.30, 0.50), True, False),
    SurveyedHud("Gran Turismo Sport", "racing", "top", 6, 3, (0.40, 0.60), True, False),
    SurveyedHud("World of Warcraft", "MMO", None, 7, 2, (0.20, 0.50), False, True),
    SurveyedHud("Rocket League", "sports", None, 4, 2, (0.40, 0.70), True, False),
)


def _backed(survey=SURVEY) -> tuple[SurveyedHud, ...]:
    return tuple(s for s in survey if s.panels or s.band)


def survey_rates(survey=SURVEY) -> dict:
    """The rates the planner uses, derived from the survey table."""
    backed = _backed(survey)
    bands = [s for s in survey if s.band]
    return {
        "band": len(bands) / len(survey),
        "band_bottom": sum(s.band == "bottom" for s in bands) / len(bands),
        "panel": sum(s.panels for s in survey) / sum(s.widgets for s in survey),
        "gradient": sum(s.gradient for s in backed) / len(backed),
        "border": sum(s.border for s in backed) / len(backed),
        # opacity: a surveyed HUD drawn by its number of backings, then uniform in its range
        "opacity_ranges": [list(s.opacity) for s in backed],
        "opacity_weights": [s.panels + (1 if s.band else 0) for s in backed],
    }


RATES = survey_rates()
BAND_HEIGHT = (0.07, 0.14)  # of the frame height (ours; Quake III's team band is 60/480 = 0.125)
PANEL_PAD = (0.004, 0.012)  # padding around the widget group, of the shorter side (ours)
DARK_VALUE = (0.03, 0.28)  # HSV value of the fill colours (ours: dark)
DARK_SATURATION = (0.0, 0.35)  # and their saturation (ours: desaturated)
GRADIENT_SPREAD = (0.06, 0.22)  # value difference between a gradient's two ends (ours)
BORDER_PX = (1, 2)
BORDER_VALUE = (0.45, 0.80)
BORDER_OPACITY_GAIN = 0.25  # a border is this much more opaque than its fill, capped at 0.9


def _opacity(rng: np.random.Generator) -> float:
    w = np.array(RATES["opacity_weights"], np.float64)
    lo, hi = RATES["opacity_ranges"][int(rng.choice(len(w), p=w / w.sum()))]
    return float(np.clip(rng.uniform(lo, hi), *OPACITY_RANGE))


def _colour(rng: np.random.Generator, value: float) -> list[int]:
    r, g, b = colorsys.hsv_to_rgb(float(rng.uniform()), float(rng.uniform(*DARK_SATURATION)), value)
    return [round(255 * r), round(255 * g), round(255 * b)]


def _style(rng: np.random.Generator) -> dict:
    """Opacity, fill and border of one backing."""
    value = float(rng.uniform(*DARK_VALUE))
    first = _colour(rng, value)
    fill = {"kind": "solid", "colors": [first, first]}
    if rng.random() < RATES["gradient"]:
        other = float(np.clip(value + rng.choice([-1, 1]) * rng.uniform(*GRADIENT_SPREAD), 0.0, 0.45))
        fill = {"kind": ["vertical", "horizontal"][int(rng.integers(2))], "colors": [first, _colour(rng, other)]}
    opacity = _opacity(rng)
    border = None
    if rng.random() < RATES["border"]:
        border = {
            "px": int(rng.integers(BORDER_PX[0], BORDER_PX[1] + 1)),
            "color": _colour(rng, float(rng.uniform(*BORDER_VALUE))),
            "opacity": min(0.9, opacity + BORDER_OPACITY_GAIN),
        }
    return {"opacity": opacity, "fill": fill, "border": border}


def _rect(wd: dict, pad: int) -> Box:
    """The widget's support in frame pixels (at rest), grown by `pad`."""
    x1, y1, x2, y2 = wd["support"]
    x, y = wd["xy"]
    return Box(x + x1 - pad, y + y1 - pad, x + x2 + pad, y + y2 + pad)


def _groups(members: list[tuple[dict, Box]]) -> list[tuple[list[dict], Box]]:
    """Still widgets whose padded rectangles touch share one panel; a moving widget has its own."""
    groups = [([wd], rect) for wd, rect in members]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                (a, ra), (b, rb) = groups[i], groups[j]
                still = not any(w["motion"]["moving"] for w in a + b)
                if still and not ra.intersect(rb).empty:
                    groups[i] = (a + b, ra.union(rb))
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return groups


def plan_backings(streams: SeedStreams, widgets: list[dict], width: int, height: int) -> dict:
    """Bands and panels for the drawn persistent `widgets` (placed, not suppressed)."""
    shorter = min(width, height)
    chosen = []
    for wd in sorted(widgets, key=lambda w: w["id"]):
        if wd["label"] in NO_PANEL_LABELS:
            continue
        rng = streams.rng("composition", "backing", "panel", wd["label"])
        if rng.random() < RATES["panel"]:
            pad = round(float(rng.uniform(*PANEL_PAD)) * shorter)
            chosen.append((wd, _rect(wd, pad)))
    elements = []
    for k, (members, rect) in enumerate(_groups(chosen)):
        ids = sorted(w["id"] for w in members)
        main = max(
            members, key=lambda w: ((w["support"][2] - w["support"][0]) * (w["support"][3] - w["support"][1]), w["id"])
        )
        follows = members[0]["id"] if members[0]["motion"]["moving"] else None
        rect = rect.clip(width, height) if not follows else rect
        if rect.empty:
            continue
        rng = streams.rng("composition", "backing", "style", *ids)
        elements.append(
            {
                "id": f"b_panel{k}",
                "label": main["label"],
                "role": "backing_panel",
                "members": ids,
                "follows": follows,
                "rect": rect.to_list(),
                **_style(rng),
            }
        )
    rng = streams.rng("composition", "backing", "band")
    if rng.random() < RATES["band"]:
        edge = "bottom" if rng.random() < RATES["band_bottom"] else "top"
        h = max(2, round(float(rng.uniform(*BAND_HEIGHT)) * height))
        y1 = height - h if edge == "bottom" else 0
        elements.append(
            {
                "id": "b_band",
                "label": "other_hud",
                "role": "backing_band",
                "edge": edge,
                "members": [],
                "follows": None,
                "rect": [0, y1, width, y1 + h],
                **_style(rng),
            }
        )
    return {"rates": {k: v for k, v in RATES.items() if not k.startswith("opacity_")}, "elements": elements}


def backing_patch(backing: dict, threshold: int) -> np.ndarray:
    """(h, w, 4) uint8 RGBA of one backing, alpha as composited (threshold applied)."""
    x1, y1, x2, y2 = backing["rect"]
    w, h = x2 - x1, y2 - y1
    fill = backing["fill"]
    c0, c1 = (np.array(c, np.float32) for c in fill["colors"])
    if fill["kind"] == "vertical":
        t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None] * np.ones((1, w, 1), np.float32)
    elif fill["kind"] == "horizontal":
        t = np.linspace(0.0, 1.0, w, dtype=np.float32)[None, :, None] * np.ones((h, 1, 1), np.float32)
    else:
        t = np.zeros((h, w, 1), np.float32)
    rgb = c0 * (1 - t) + c1 * t
    alpha = np.full((h, w), backing["opacity"], np.float32)
    border = backing["border"]
    if border is not None:
        edge = np.zeros((h, w), bool)
        p = border["px"]
        edge[:p], edge[-p:], edge[:, :p], edge[:, -p:] = True, True, True, True
        rgb[edge] = np.array(border["color"], np.float32)
        alpha[edge] = border["opacity"]
    a = np.rint(alpha * 255)
    a[a < threshold] = 0
    return np.dstack([np.rint(rgb), a]).astype(np.uint8)
