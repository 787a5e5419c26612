"""Text blocks: kill feed, chat, console notify lines and corner readouts (frame rate, spectator).

Real HUDs carry much of their area as text that no icon library holds: a kill feed whose lines
arrive and expire, chat, an engine console's notify lines, an fps counter ticking in a corner, a
"spectating <name>" line. `plan_text_blocks` decides, into the record, which blocks a sample has
(at the rates of the HUD survey, `survey.RATES`), where each sits (a corner, or the one of its
candidate corners that overlaps the drawn widgets least), its typography (a face of the fixed
catalogue in `g2w.fonts`, a size, colours, an outline, a drop shadow or neither, a translucent
strip behind feed and chat lines at the surveyed share) and every line's text and frames.

`text_layers` lays a block out at one frame: the visible lines stacked from the block's corner
in arrival order (older lines move up or down as newer ones arrive and old ones expire), each
line one layer and one annotation instance, labelled from the 21-label taxonomy as the real
captures label the same elements (kill feed and console: screen_notice; chat: chat_comms; fps:
performance_debug; spectator line: player_status).
A corner readout is one persistent instance whose text changes in place.
"""

from __future__ import annotations

import numpy as np

from g2w.fonts import FACES
from g2w.hud.seeds import SeedStreams
from g2w.hud.survey import RATES, TEXT_EDGES
from g2w.hud.text_draw import text_patch
from g2w.types import Box

KINDS = ("kill_feed", "chat", "console", "fps", "spectator")
LABELS = {
    "kill_feed": "screen_notice",
    "chat": "chat_comms",
    "console": "screen_notice",
    "fps": "performance_debug",
    "spectator": "player_status",
}
PERSISTENT_KINDS = ("fps", "spectator")  # one instance for the whole clip, text updated in place
# Ours: where each block sits (candidate corners, most usual first), its text size (of the frame
# height), the face classes it uses, how many lines it shows at once and how long a line stays.
CORNERS = {
    "kill_feed": ("top_right", "top_left", "bottom_left"),
    "chat": ("bottom_left", "top_left", "bottom_right"),
    "console": ("top_left",),
    "fps": ("top_right", "bottom_right", "top_left"),
    "spectator": ("bottom_center", "bottom_right", "top_center"),
}
SIZE = {"kill_feed": (0.018, 0.03), "chat": (0.017, 0.028), "console": (0.015, 0.024), "fps": (0.016, 0.026)}
SIZE["spectator"] = (0.022, 0.036)
FACE_CLASS = {
    "kill_feed": {"sans": 0.75, "serif": 0.15, "mono": 0.10},
    "chat": {"sans": 0.7, "serif": 0.15, "mono": 0.15},
    "console": {"mono": 0.7, "sans": 0.3},
    "fps": {"mono": 0.6, "sans": 0.4},
    "spectator": {"sans": 0.8, "serif": 0.2},
}
MAX_LINES = {"kill_feed": (3, 6), "chat": (3, 7), "console": (2, 5)}
LIFETIME_S = {"kill_feed": (4.0, 7.0), "chat": (6.0, 12.0), "console": (2.5, 4.0)}
ARRIVALS_PER_S = {"kill_feed": (0.3, 1.2), "chat": (0.2, 0.8), "console": (0.3, 1.5)}  # Poisson rates
FPS_PERIOD_S = (0.25, 1.0)  # how often the fps readout changes
MARGIN = (0.008, 0.03)  # of the frame's width / height, from the screen edge
LINE_GAP = (0.1, 0.45)  # between lines, of the text size
OPACITY = (0.8, 1.0)
STRIP_OPACITY = (0.25, 0.6)
EDGE_PX = (1, 2)
SHADOW_PX = (1, 2)
FADE_S = 0.4  # chat and console lines fade out over their last FADE_S seconds

NAMES = (
    "Nova",
    "Rex",
    "Vex",
    "Kilo",
    "Mira",
    "Ash",
    "Juno",
    "Orca",
    "Pixel",
    "Blaze",
    "Echo",
    "Ghost",
    "Raven",
    "Tank",
    "Zed",
    "Lux",
    "Fury",
    "Nyx",
    "Sparky",
    "Hex",
    "Bolt",
    "Wisp",
    "Drift",
    "Onyx",
    "Rook",
)
WEAPONS = ("[rail]", "[AK-47]", "[rocket]", "[shotgun]", "[SMG]", "[headshot]", "[knife]", "[plasma]", "[sniper]")
VERBS = (" killed ", " fragged ", " was railed by ", " eliminated ", " destroyed ")
CHAT = (
    "gg",
    "nice shot",
    "rush B",
    "need health!",
    "where is the flag?",
    "lol",
    "brb",
    "ok",
    "on my way",
    "cover me",
    "enemy at mid",
    "2 left",
    "good game all",
    "wp",
    "push now",
    "careful, sniper",
    "thanks",
    "who has the ammo?",
    "defend base",
    "rematch?",
    "sorry, lag",
    "group up",
)
CONSOLE = (
    "{n} connected",
    "{n} entered the game",
    "{n} disconnected",
    "{n} was railed by {m}",
    "{n} joined the blue team",
    "server: timelimit 10",
    "map: dm17",
    "{n} fragged {m}",
    "Server time: 04:12",
    "vote passed",
    "{n} is now spectating",
    "{n} got the flag!",
    "{n} renamed to {m}",
    "Sending heartbeat",
    "{n} timed out",
)
FPS_FORMATS = ("FPS {f}", "{f} fps", "fps: {f}  ms: {p}", "{f} FPS", "FPS: {f}", "{p} ms  {f} fps")
SPECTATOR_FORMATS = ("Spectating {n}", "following {n}", "SPECTATOR: {n}", "Now watching {n}")
TEXT_COLOURS = ([255, 255, 255], [235, 235, 225], [255, 220, 120], [200, 230, 255], [170, 255, 170])
TEAM_COLOURS = ([255, 90, 80], [90, 160, 255], [120, 230, 120], [255, 200, 60], [220, 120, 255])
EDGE_COLOURS = ([0, 0, 0], [20, 20, 30], [40, 30, 20])


def _choice(rng: np.random.Generator, items):
    return items[int(rng.integers(len(items)))]


def _face(rng: np.random.Generator, kind: str) -> str:
    classes = FACE_CLASS[kind]
    names, p = list(classes), np.array(list(classes.values()))
    cls = names[int(rng.choice(len(names), p=p / p.sum()))]
    return _choice(rng, [n for n, (_, _, c) in FACES.items() if c == cls])


def text_style(rng: np.random.Generator, size: int, face_name: str, strip: bool, threshold: int) -> dict:
    """Edge (surveyed mix), colours, opacity and optional translucent strip of one text element."""
    edges = RATES["text_edge"]
    edge = TEXT_EDGES[int(rng.choice(len(TEXT_EDGES), p=np.array([edges[e] for e in TEXT_EDGES])))]
    style = {
        "face": face_name,
        "size": int(size),
        "edge": edge,
        "edge_px": int(rng.integers(EDGE_PX[0], EDGE_PX[1] + 1)) if size >= 16 else 1,
        "edge_color": list(_choice(rng, EDGE_COLOURS)),
        "shadow": [int(rng.integers(SHADOW_PX[0], SHADOW_PX[1] + 1))] * 2,
        "opacity": float(rng.uniform(*OPACITY)),
        "strip": None,
        "threshold": int(threshold),
    }
    if strip:
        pad = max(1, round(size * float(rng.uniform(0.12, 0.3))))
        v = int(rng.integers(5, 40))
        style["strip"] = {"color": [v, v, v + int(rng.integers(0, 12))], "opacity": float(rng.uniform(*STRIP_OPACITY))}
        style["strip"]["pad"] = pad
    return style


def _arrivals(rng: np.random.Generator, kind: str, duration_s: float) -> list[tuple[float, float]]:
    """(start_s, end_s) of each line: some already on screen at the first frame, then Poisson arrivals."""
    life = LIFETIME_S[kind]
    rate = float(rng.uniform(*ARRIVALS_PER_S[kind]))
    out = []
    t = -float(rng.uniform(0.0, life[1]))  # lines that arrived before the clip
    while True:
        t += float(rng.exponential(1.0 / rate))
        if t >= duration_s:
            break
        end = t + float(rng.uniform(*life))
        if end > 0:
            out.append((t, end))
    return out


def _line_spans(rng: np.random.Generator, kind: str, colour, team) -> list[list]:
    if kind == "kill_feed":
        a, b = (list(_choice(rng, TEAM_COLOURS)) for _ in range(2))
        killer, victim = _choice(rng, NAMES), _choice(rng, NAMES)
        middle = f" {_choice(rng, WEAPONS)} " if rng.random() < 0.6 else _choice(rng, VERBS)
        return [[killer, a], [middle, list(colour)], [victim, b]]
    if kind == "chat":
        name = _choice(rng, NAMES)
        prefix = "(team) " if rng.random() < 0.25 else ""
        return [[f"{prefix}{name}: ", list(team)], [_choice(rng, CHAT), list(colour)]]
    template = _choice(rng, CONSOLE)
    return [[template.format(n=_choice(rng, NAMES), m=_choice(rng, NAMES)), list(colour)]]


def _origin(corner: str, margin: tuple[int, int], width: int, height: int) -> tuple[list[int], str, str]:
    """(anchor point, horizontal alignment, stacking direction) of a block in a corner."""
    mx, my = margin
    vertical, horizontal = corner.split("_")
    x = {"left": mx, "right": width - mx, "center": width // 2}[horizontal]
    y = my if vertical == "top" else height - my
    return [x, y], horizontal, "down" if vertical == "top" else "up"


def _extent(origin, align: str, grow: str, w: int, h: int) -> Box:
    x, y = origin
    x1 = {"left": x, "right": x - w, "center": x - w // 2}[align]
    y1 = y if grow == "down" else y - h
    return Box(x1, y1, x1 + w, y1 + h)


def _place(rng, kind, occupied: list[Box], width, height, block_w, block_h):
    margin = (round(float(rng.uniform(*MARGIN)) * width), round(float(rng.uniform(*MARGIN)) * height))
    order = list(CORNERS[kind])
    if len(order) > 1 and rng.random() >= 0.7:  # the usual corner first, another one 30 % of the time
        order.insert(0, order.pop(1 + int(rng.integers(len(order) - 1))))

    def overlap(corner):
        origin, align, grow = _origin(corner, margin, width, height)
        ext = _extent(origin, align, grow, block_w, block_h)
        return sum(ext.intersect(b).area for b in occupied)

    corner = min(order, key=lambda c: (overlap(c), order.index(c)))  # stable: preference breaks ties
    return corner, _origin(corner, margin, width, height)


def plan_text_blocks(
    streams: SeedStreams, width: int, height: int, fps: float, frame_count: int, occupied: list[Box], threshold: int
) -> dict:
    """The sample's text blocks (see the module docstring); `occupied` are the drawn widgets' rectangles."""
    duration = frame_count / fps
    blocks = []
    for kind in KINDS:
        rate_key = {"fps": "corner"}.get(kind, kind)
        rng = streams.rng("composition", "text", kind)
        if rng.random() >= RATES[rate_key]:
            continue
        size = max(8, round(float(rng.uniform(*SIZE[kind])) * height))
        strip = kind in ("kill_feed", "chat") and rng.random() < RATES["line_strips"]
        style = text_style(rng, size, _face(rng, kind), strip, threshold)
        colour = _choice(rng, TEXT_COLOURS)
        team = _choice(rng, TEAM_COLOURS)
        line_h = size + round(size * float(rng.uniform(*LINE_GAP))) + (2 * style["strip"]["pad"] if strip else 0)
        max_lines = int(rng.integers(MAX_LINES[kind][0], MAX_LINES[kind][1] + 1)) if kind in MAX_LINES else 1
        est_w = round(size * (14 if kind in ("kill_feed", "chat") else 10))
        corner, (origin, align, grow) = _place(rng, kind, occupied, width, height, est_w, max_lines * line_h)
        timing = streams.rng("timing", "text", kind)
        lines = []
        if kind in PERSISTENT_KINDS:
            if kind == "fps":
                fmt, base, ping = (
                    _choice(timing, FPS_FORMATS),
                    int(timing.integers(45, 300)),
                    int(timing.integers(8, 90)),
                )
                period = max(1, round(float(timing.uniform(*FPS_PERIOD_S)) * fps))
                for k, start in enumerate(range(0, frame_count, period)):
                    f = max(1, base + int(timing.integers(-12, 13)))
                    text = fmt.format(f=f, p=max(1, ping + int(timing.integers(-3, 4))))
                    lines.append(
                        {
                            "id": f"t_{kind}",
                            "state": k,
                            "spans": [[text, list(colour)]],
                            "start_frame": start,
                            "end_frame": min(frame_count, start + period),
                        }
                    )
            else:
                text = _choice(timing, SPECTATOR_FORMATS).format(n=_choice(timing, NAMES))
                lines.append(
                    {
                        "id": f"t_{kind}",
                        "state": 0,
                        "spans": [[text, list(colour)]],
                        "start_frame": 0,
                        "end_frame": frame_count,
                    }
                )
        else:
            for k, (t0, t1) in enumerate(_arrivals(timing, kind, duration)):
                start, end = max(0, round(t0 * fps)), min(frame_count, round(t1 * fps))
                if end > start:
                    lines.append(
                        {
                            "id": f"t_{kind}/{k}",
                            "state": 0,
                            "spans": _line_spans(timing, kind, colour, team),
                            "start_frame": start,
                            "end_frame": end,
                            "arrival_s": round(t0, 4),
                        }
                    )
        if not lines:
            continue
        blocks.append(
            {
                "id": f"t_{kind}",
                "kind": kind,
                "label": LABELS[kind],
                "corner": corner,
                "origin": origin,
                "align": align,
                "grow": grow,
                "line_height": int(line_h),
                "max_lines": max_lines,
                "fade_frames": round(FADE_S * fps) if kind in ("chat", "console") else 0,
                "style": style,
                "lines": lines,
            }
        )
    return {"rates": {k: RATES[{"fps": "corner"}.get(k, k)] for k in KINDS}, "blocks": blocks}


def visible_lines(block: dict, index: int) -> list[dict]:
    """The block's lines on screen at frame `index`, oldest first, at most max_lines (newest kept)."""
    live = [ln for ln in block["lines"] if ln["start_frame"] <= index < ln["end_frame"]]
    return live[-block["max_lines"] :]


def fade(block: dict, line: dict, index: int) -> float:
    """Opacity factor of a line at frame `index`: 1, falling linearly over its last fade_frames."""
    n = block["fade_frames"]
    left = line["end_frame"] - index
    return 1.0 if n == 0 or left >= n else left / (n + 1)


def line_patch(block: dict, line: dict) -> np.ndarray:
    """The line's RGBA at full (unfaded) opacity, alpha not yet thresholded."""
    return text_patch(line["spans"], {**block["style"], "threshold": 0})


def text_layers(block: dict, index: int, patch) -> list[tuple[str, np.ndarray, int, int]]:
    """(instance id, RGBA, x, y) of each visible line at frame `index`; `patch(block, line, factor)`
    returns the line's RGBA as composited: `line_patch` with its alpha times the fade factor and
    thresholded (the caller caches both)."""
    lines = visible_lines(block, index)
    out = []
    x0, y0 = block["origin"]
    n = len(lines)
    for k, line in enumerate(lines):
        rgba = patch(block, line, fade(block, line, index))
        h, w = rgba.shape[:2]
        x = {"left": x0, "right": x0 - w, "center": x0 - w // 2}[block["align"]]
        slot = k if block["grow"] == "down" else n - k
        y = y0 + slot * block["line_height"] if block["grow"] == "down" else y0 - slot * block["line_height"]
        out.append((line["id"], rgba, int(x), int(y)))
    return out
