"""A survey of real game HUDs: which kinds of text and world-anchored UI their default HUDs draw.

Synthetic HUDs should contain what real ones contain, at the rates real ones do, so the rates of
kill feeds, chat, consoles, corner readouts, name tags, objective markers, damage numbers and
small crosshairs are derived from this table, not chosen by hand. The table lists the same
eighteen well-known games as the translucent-backing survey (`backing.SURVEY`), each in its
default HUD and usual multiplayer mode, as remembered from play and footage: the entries are
estimates, not measurements, and docs/hud_synthesis.md prints them. A column is true where the
default HUD shows the element during ordinary play (a spectator line where watching another
player shows one).

`element_rates()` turns the table into the planner's rates: the share of surveyed HUDs with each
element, the share of crosshairs that are small, the text-edge mix (outline, drop shadow, plain)
and the share of text HUDs that put their feed and chat lines on translucent strips.
"""

from __future__ import annotations

from dataclasses import dataclass

from g2w.hud.backing import SURVEY as BACKING_SURVEY


@dataclass(frozen=True)
class SurveyedElements:
    game: str
    kill_feed: bool  # a feed of kill / score lines, entries expiring after a few seconds
    chat: bool  # player chat lines on screen
    console: bool  # engine console notify lines (connects, frags, server messages)
    corner: bool  # a corner readout by default: frame rate, ping, network
    spectator: bool  # a "spectating / following <name>" line while watching another player
    name_tags: bool  # player names drawn at the player's projected position
    markers: bool  # objective or waypoint markers at a world position
    damage_numbers: bool  # numbers that pop up where a hit landed
    crosshair: bool
    small_crosshair: bool  # the default reticle is small (at most about 2 % of the width)
    text_edge: str  # "outline" | "shadow" | "plain": how the HUD's text is separated from the world
    line_strips: bool  # feed or chat lines on translucent strips


T, F = True, False
SURVEY: tuple[SurveyedElements, ...] = (
    SurveyedElements("Quake III Arena (team modes)", F, T, T, F, T, F, F, F, T, F, "shadow", F),
    SurveyedElements("Cube 2: Sauerbraten", F, T, T, T, T, T, F, F, T, T, "outline", F),
    SurveyedElements("Doom (2016)", T, T, F, F, T, T, T, F, T, T, "plain", F),
    SurveyedElements("Xonotic (default HUD)", T, T, T, F, T, T, T, F, T, T, "plain", T),
    SurveyedElements("Unreal Tournament 2004", T, T, T, F, T, T, T, F, T, F, "shadow", F),
    SurveyedElements("Counter-Strike: Global Offensive", T, T, F, F, T, T, T, F, T, T, "shadow", T),
    SurveyedElements("Valorant", T, T, F, F, T, T, T, F, T, T, "plain", T),
    SurveyedElements("Team Fortress 2", T, T, F, F, T, F, T, F, T, F, "shadow", T),
    SurveyedElements("Apex Legends", T, F, F, F, T, T, T, T, T, T, "plain", T),
    SurveyedElements("Fortnite", T, F, F, F, T, T, T, T, T, T, "outline", F),
    SurveyedElements("Call of Duty: Modern Warfare (2019)", T, T, F, F, T, T, T, F, T, T, "shadow", F),
    SurveyedElements("Halo Infinite", T, T, F, F, T, T, T, F, T, F, "plain", F),
    SurveyedElements("Dota 2", T, T, F, F, F, T, F, T, F, F, "shadow", T),
    SurveyedElements("League of Legends", T, T, F, T, F, T, F, T, F, F, "outline", T),
    SurveyedElements("Forza Horizon 4", F, F, F, F, F, T, T, F, F, F, "plain", F),
    SurveyedElements("Gran Turismo Sport", F, F, F, F, F, T, F, F, F, F, "plain", F),
    SurveyedElements("World of Warcraft", F, T, F, F, F, T, T, T, F, F, "outline", T),
    SurveyedElements("Rocket League", T, T, F, F, T, T, F, F, F, F, "outline", T),
)
ELEMENTS = (
    "kill_feed",
    "chat",
    "console",
    "corner",
    "spectator",
    "name_tags",
    "markers",
    "damage_numbers",
    "crosshair",
)
TEXT_EDGES = ("outline", "shadow", "plain")
# Ours: the share of footage that is spectated (a demo or a spectator camera), by which the
# surveyed share of HUDs with a spectator line is multiplied; the survey cannot give it.
SPECTATED_SHARE = 0.3


def element_rates(survey: tuple[SurveyedElements, ...] = SURVEY) -> dict:
    """The planner's rates, each a share of the surveyed HUDs."""
    n = len(survey)
    rates = {name: sum(getattr(s, name) for s in survey) / n for name in ELEMENTS}
    rates["spectator"] *= SPECTATED_SHARE
    crosshairs = [s for s in survey if s.crosshair]
    rates["small_crosshair"] = sum(s.small_crosshair for s in crosshairs) / len(crosshairs)
    rates["text_edge"] = {e: sum(s.text_edge == e for s in survey) / n for e in TEXT_EDGES}
    texty = [s for s in survey if s.kill_feed or s.chat]
    rates["line_strips"] = sum(s.line_strips for s in texty) / len(texty)
    return rates


def translucent_share(survey=BACKING_SURVEY) -> float:
    """The share of surveyed HUDs with any translucent panel or band (the backing survey's column)."""
    return sum(1 for s in survey if s.panels or s.band) / len(survey)


RATES = element_rates()
