"""The text, anchored and small-crosshair rates come from the HUD survey, and many planned layouts
draw them at those rates; the survey table in docs/hud_synthesis.md is the one in code."""

from __future__ import annotations

import os

import numpy as np

from g2w.hud.anchored import plan_anchored
from g2w.hud.backing import SURVEY as BACKING_SURVEY
from g2w.hud.crosshairs import plan_small_crosshair
from g2w.hud.seeds import SeedStreams
from g2w.hud.survey import RATES, SURVEY, element_rates
from g2w.hud.text_blocks import plan_text_blocks

LAYOUTS = 2000
DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "hud_synthesis.md")


def _tolerance(p: float) -> float:
    return 4 * np.sqrt(p * (1 - p) / LAYOUTS) + 1e-9  # four binomial standard errors


def test_rates_are_shares_of_the_survey():
    n = len(SURVEY)
    assert n == 18 and [s.game for s in SURVEY] == [s.game for s in BACKING_SURVEY]
    assert RATES["kill_feed"] == sum(s.kill_feed for s in SURVEY) / n
    assert RATES["name_tags"] == sum(s.name_tags for s in SURVEY) / n
    assert sum(RATES["text_edge"].values()) == 1.0
    # a changed survey changes the rates: nothing else feeds them
    flipped = tuple(s.__class__(**{**s.__dict__, "chat": not s.chat}) for s in SURVEY)
    assert element_rates(flipped)["chat"] == 1 - RATES["chat"]


def test_many_layouts_match_the_survey():
    kinds = {"kill_feed": 0, "chat": 0, "console": 0, "fps": 0, "spectator": 0}
    anchored = {"name_tag": 0, "marker": 0, "damage": 0}
    edges = {"outline": 0, "shadow": 0, "plain": 0}
    strips = strip_blocks = small = 0
    for seed in range(LAYOUTS):
        streams = SeedStreams(seed)
        blocks = plan_text_blocks(streams, 1280, 720, 30.0, 150, [], 8)["blocks"]
        for b in blocks:
            kinds[b["kind"]] += 1
            edges[b["style"]["edge"]] += 1
            if b["kind"] in ("kill_feed", "chat"):
                strip_blocks += 1
                strips += b["style"]["strip"] is not None
        present = {e["kind"] for e in plan_anchored(streams, 1280, 720, 30.0, 150, 8)["elements"]}
        for kind in present:
            anchored[kind] += 1
        small += plan_small_crosshair(streams, 1280) is not None
    # a block with no line in the clip is not drawn: only feeds and chat can be empty, rarely
    for kind, key in {"console": "console", "fps": "corner", "spectator": "spectator"}.items():
        assert abs(kinds[kind] / LAYOUTS - RATES[key]) <= _tolerance(RATES[key]), kind
    for kind in ("kill_feed", "chat"):
        assert RATES[kind] - 0.06 <= kinds[kind] / LAYOUTS <= RATES[kind] + _tolerance(RATES[kind]), kind
    for kind, key in {"name_tag": "name_tags", "marker": "markers"}.items():
        assert abs(anchored[kind] / LAYOUTS - RATES[key]) <= _tolerance(RATES[key]), kind
    # damage numbers: present when drawn and at least one arrives within the clip
    assert RATES["damage_numbers"] - 0.05 <= anchored["damage"] / LAYOUTS <= RATES["damage_numbers"] + 0.03
    assert abs(small / LAYOUTS - RATES["small_crosshair"]) <= _tolerance(RATES["small_crosshair"])
    total = sum(edges.values())
    for edge, share in RATES["text_edge"].items():
        assert abs(edges[edge] / total - share) <= 4 * np.sqrt(share * (1 - share) / total), edge
    assert abs(strips / strip_blocks - RATES["line_strips"]) <= 4 * np.sqrt(0.25 / strip_blocks)


def test_the_documented_table_is_the_survey():
    with open(DOC) as f:
        text = f.read()
    rows = [line for line in text.splitlines() if line.startswith("| ") and line.count("|") == 15]
    body = [r for r in rows if not r.startswith("| game") and not r.startswith("| ---")]
    assert len(body) == len(SURVEY)
    for row, s, b in zip(body, SURVEY, BACKING_SURVEY):
        cells = [c.strip() for c in row.strip("|").split("|")]
        flags = [s.kill_feed, s.chat, s.console, s.corner, s.spectator, s.name_tags, s.markers]
        flags += [s.damage_numbers, s.crosshair, s.small_crosshair]
        assert cells[0] == s.game
        assert cells[1:11] == ["yes" if v else "no" for v in flags]
        assert cells[11:] == [s.text_edge, "yes" if s.line_strips else "no", "yes" if (b.panels or b.band) else "no"]
