"""GameUI taxonomy: the 21 UI labels, the persistent widget roles and the popup event categories.

Every asset, synthesized instance and annotation names one of these labels, so annotation,
asset sampling and evaluation agree on what a piece of UI is (paper §4.1, Appendix A, Table 7).
Roles (Table 8) say how a persistent widget of a label is laid out; event categories
(Tables 11-13) say how a transient popup behaves. The numbers attached to roles and categories
live in `g2w.hud.profile`; this module only names things.
"""

from __future__ import annotations

TAXONOMY_VERSION = "gameui-21-v1"

# Label -> what it covers (our wording of Table 7's definitions).
DEFINITIONS: dict[str, str] = {
    "map_radar": "A mini-map of the surroundings, or a radar/scan display of nearby things.",
    "navigation_compass": "A compass, heading tape, bearing strip or other direction readout.",
    "player_status": "The player's own vitals and state: health, armour, stamina, resources, "
    "level or portrait, alone or grouped.",
    "teammate_roster": "A list of party or team members, or a cluster showing their state.",
    "weapon_ammo": "The equipped weapon with its ammunition, reload or fire-mode display.",
    "inventory": "Hotbars, quick slots, backpacks, item grids or inventory panels.",
    "ability_status": "Skills, powers, charges and their cooldown indicators.",
    "vehicle_status": "Gauges, controls or telemetry of a vehicle being driven.",
    "objective_status": "Mission or task text, objective counters and progress toward them.",
    "match_status": "Timers, scores, rounds, placements, scoreboards or match progress.",
    "world_context": "Markers tied to the world: names, places, distances, opponents, or the "
    "state of an object in the scene.",
    "crosshair": "The aiming reticle.",
    "interaction_prompt": "A prompt to press a key or button for an action available now.",
    "screen_notice": "A passing notification: tutorial tip, kill feed entry, pickup, warning or achievement.",
    "subtitle": "Captions of spoken dialogue.",
    "chat_comms": "Chat typed between players, or a chat log.",
    "menu_controls": "Menus, toolbars, loading controls, a cursor or other utility controls.",
    "performance_debug": "Frame rate, network, diagnostic, version or debug readouts.",
    "watermark": "A passive mark: copyright, publisher, sponsor, recording indicator, channel name, logo or title.",
    "stream_overlay": "Live-broadcast dressing: a facecam, donation or event alert, or the creator's status.",
    "other_hud": "UI that is clearly present but fits none of the labels above.",
}

LABELS: tuple[str, ...] = tuple(DEFINITIONS)

# Persistent roles of Table 8 and the label each one renders.
ROLE_LABEL: dict[str, str] = {
    "minimap": "map_radar",
    "compass_bar": "navigation_compass",
    "health": "player_status",
    "stamina": "player_status",
    "weapon_bar": "inventory",
    "crosshair": "crosshair",
    "objective_marker": "world_context",
    "ammo_counter": "weapon_ammo",
}
PERSISTENT_ROLES: tuple[str, ...] = tuple(ROLE_LABEL)

# The labels Table 10 may spawn as persistent widgets, with the roles an asset of that label
# can fill (player_status is one widget whose asset is either a health or a stamina panel).
PERSISTENT_LABEL_ROLES: dict[str, tuple[str, ...]] = {
    "map_radar": ("minimap",),
    "player_status": ("health", "stamina"),
    "inventory": ("weapon_bar",),
    "navigation_compass": ("compass_bar",),
    "crosshair": ("crosshair",),
    "weapon_ammo": ("ammo_counter",),
    "world_context": ("objective_marker",),
}

# Logical popup categories (Table 11). Each is also a label; the asset drawn for an event may
# come from a related label (Table 12), and the record keeps both.
EVENT_CATEGORIES: tuple[str, ...] = (
    "world_context",
    "objective_status",
    "interaction_prompt",
    "screen_notice",
    "ability_status",
    "teammate_roster",
    "match_status",
)

# An inventory icon separated from its bar: rendered only as a child of a weapon_bar widget.
ICON_ROLE = "icon"


def check_label(label: str) -> str:
    """Return `label` if it is one of the 21, else raise ValueError naming the bad value."""
    if label not in DEFINITIONS:
        raise ValueError(f"unknown UI label {label!r}; expected one of {', '.join(LABELS)}")
    return label
