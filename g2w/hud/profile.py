"""Every number the HUD renderer uses, in one place, each next to the table it comes from.

The default `SynthProfile` is the paper's 720p five-second profile (Appendix F): opacity 0.94,
automatic style, dynamic status and inventory, transient events, collision threshold 0.14,
jitter (0.018, 0.018), aspect fallback area 0.04, aesthetic matching off. Sizes, offsets and
amplitudes are fractions of the output frame, so any frame size works.

Where the paper names a mechanism without its numbers (slide distances, the Smooth() curve's
secondary wave, wipe modulation, a transient profile for world_context), the values here are
ours and are marked "ours" (docs/hud_synthesis.md lists them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

# ---- Appendix B.2 / Table 8: persistent role priors ----------------------------------------


@dataclass(frozen=True)
class RolePrior:
    label: str
    aspect: tuple[float, float]  # allowed width/height of the asset's alpha support
    w_max: float  # fraction of frame width
    h_max: float  # fraction of frame height
    priority: int  # collision order: higher is placed first and never moved for a lower one
    p_motion: float  # chance the widget moves at all
    motion_frac: tuple[float, float]  # largest (x, y) motion amplitude, fraction of (W, H)


ROLE_PRIORS: dict[str, RolePrior] = {
    "minimap": RolePrior("map_radar", (0.65, 1.65), 0.185, 0.290, 80, 0.25, (0.0012, 0.0008)),
    "compass_bar": RolePrior("navigation_compass", (1.80, 18.00), 0.390, 0.065, 70, 0.42, (0.0018, 0.0008)),
    "health": RolePrior("player_status", (1.35, 7.50), 0.245, 0.110, 85, 0.20, (0.0010, 0.0007)),
    "stamina": RolePrior("player_status", (1.35, 8.50), 0.205, 0.060, 84, 0.24, (0.0010, 0.0008)),
    "weapon_bar": RolePrior("inventory", (1.45, 8.50), 0.360, 0.175, 75, 0.28, (0.0012, 0.0007)),
    "crosshair": RolePrior("crosshair", (0.40, 2.50), 0.055, 0.085, 100, 0.55, (0.0018, 0.0018)),
    "objective_marker": RolePrior("world_context", (0.25, 4.00), 0.100, 0.120, 55, 0.92, (0.0120, 0.0070)),
    "ammo_counter": RolePrior("weapon_ammo", (0.40, 8.00), 0.130, 0.090, 65, 0.32, (0.0014, 0.0010)),
}

# Motion periods (B.2): horizontal 5-9 s, vertical 6-11 s; phases U[0, 2*pi).
MOTION_PERIOD_X_S = (5.0, 9.0)
MOTION_PERIOD_Y_S = (6.0, 11.0)
# Amplitude is drawn as U(lo, 1) x the role's fraction (ours: the paper says "drawn from the
# role-specific fractions" without the law; a floor keeps a moving widget visibly moving).
MOTION_AMPLITUDE_FLOOR = 0.5

# ---- Anchors and formations (B.2) ---------------------------------------------------------
# An anchor is (fx, fy): where the widget sits inside the frame minus a margin, 0 = left/top,
# 1 = right/bottom. "free" anchors draw (fx, fy) uniformly from a box.
MARGIN_FRAC = 0.022  # of the shorter frame side (ours)
FREE_ANCHOR_BOX = ((0.18, 0.82), (0.18, 0.70))  # objective marker: anywhere mid-screen (ours)

DEFAULT_ANCHORS: dict[str, tuple[float, float]] = {
    "minimap": (0.0, 0.0),
    "compass_bar": (0.5, 0.0),
    "health": (0.0, 1.0),
    "stamina": (0.0, 1.0),
    "weapon_bar": (0.5, 1.0),
    "crosshair": (0.5, 0.5),
    "ammo_counter": (1.0, 1.0),
}

# Formation -> overrides of the default anchors (B.2: the weapon bar stays bottom-center).
FORMATIONS: dict[str, dict[str, tuple[float, float]]] = {
    "adventure": {"minimap": (0.0, 0.0), "health": (0.0, 1.0), "stamina": (0.0, 1.0)},
    "tactical": {"minimap": (1.0, 0.0), "health": (0.0, 0.0), "stamina": (0.0, 0.0)},
    "rpg": {"minimap": (0.0, 1.0), "health": (1.0, 0.0), "stamina": (1.0, 0.0)},
}

# ---- Table 9: style presets ---------------------------------------------------------------


@dataclass(frozen=True)
class StylePreset:
    formation: str
    opacity_scale: float
    ui_scale: float
    transient_density: float
    role_scales: dict[str, float] = field(default_factory=dict)


STYLES: dict[str, StylePreset] = {
    "adventure": StylePreset("adventure", 0.94, 1.00, 0.95, {"minimap": 1.06, "health": 1.06, "weapon_bar": 1.00}),
    "tactical": StylePreset(
        "tactical", 1.00, 0.96, 1.20, {"minimap": 1.02, "health": 0.92, "weapon_bar": 1.03, "crosshair": 1.14}
    ),
    "rpg": StylePreset("rpg", 0.92, 1.04, 1.10, {"minimap": 1.08, "health": 1.08, "weapon_bar": 1.00}),
    "survival": StylePreset(
        "adventure", 0.88, 0.92, 0.75, {"minimap": 0.95, "health": 0.98, "weapon_bar": 0.90, "crosshair": 0.92}
    ),
    "arena": StylePreset(
        "tactical", 1.02, 1.02, 1.35, {"minimap": 0.98, "health": 0.86, "weapon_bar": 1.08, "crosshair": 1.22}
    ),
}
HUD_OPACITY = 0.94  # Eq. 7: alpha_HUD = clip(0.94 * s_alpha, 0, 1)
ROLE_SCALE_CAP = 0.92  # scaled role limits never exceed 92 % of the frame dimension

# ---- Table 10: persistent spawn policy (each label on its own seed stream, max 1 each) ------
PERSISTENT_SPAWN: dict[str, float] = {
    "map_radar": 0.68,
    "player_status": 0.72,
    "inventory": 0.58,
    "navigation_compass": 0.48,
    "crosshair": 0.64,
    "weapon_ammo": 0.54,
    "world_context": 0.36,
}

# ---- Collision resolution (B.2) -----------------------------------------------------------
COLLISION_PAD_FRAC = 0.006  # base padding around each rectangle, of the shorter side (ours)
# Frame-relative candidate displacements (fractions of W and H) and size-relative ones
# (fractions of the widget's own width and height) (ours; the paper names both kinds).
FRAME_STEPS = (0.0, 0.02, -0.02, 0.045, -0.045, 0.08, -0.08, 0.13, -0.13)
SIZE_STEPS = (0.5, -0.5, 1.0, -1.0, 1.5, -1.5)
DISPLACEMENT_WEIGHT = 1.0  # cost = sum(rho^2) + weight * (|dx|/W + |dy|/H) (weight ours)

# ---- Eq. 8 and Table 11: popup count and event categories ---------------------------------
POPUP_COUNT_P = (0.14, 0.43, 0.28, 0.10, 0.04, 0.01)  # P(M = 0..5); E[M] = 1.5
EVENT_POLICY: dict[str, tuple[float, int]] = {  # category -> (weight, maximum count)
    "world_context": (0.65, 3),
    "objective_status": (0.45, 2),
    "interaction_prompt": (0.55, 2),
    "screen_notice": (0.60, 3),
    "ability_status": (0.35, 2),
    "teammate_roster": (0.20, 2),
    "match_status": (0.45, 2),
}
# The general profile draws every category slot as an independent Bernoulli trial. The paper
# (B.3, after Eq. 8) gives its expectation, 5.50 events per video under the default automatic
# style, but not the per-slot probabilities. Ours: Table 11's weights scaled by one constant, times
# the drawn style's transient density relative to the five presets' mean (1.07), so the expectation
# over the uniform style mixture is exactly 5.50 while denser styles still get more events.
BERNOULLI_EXPECTED = 5.50
BERNOULLI_SLOT_SCALE = BERNOULLI_EXPECTED / sum(w * m for w, m in EVENT_POLICY.values())
MEAN_TRANSIENT_DENSITY = sum(s.transient_density for s in STYLES.values()) / len(STYLES)


def bernoulli_slot_p(weight: float, transient_density: float) -> float:
    """One slot's probability for a category of Table 11 `weight` in a style of this density."""
    return weight * BERNOULLI_SLOT_SCALE * transient_density / MEAN_TRANSIENT_DENSITY


def bernoulli_expected(style: str) -> float:
    """Expected events per clip: 5.50 under `auto`, the preset's relative share otherwise."""
    if style == "auto":
        return BERNOULLI_EXPECTED
    return BERNOULLI_EXPECTED * STYLES[style].transient_density / MEAN_TRANSIENT_DENSITY


# ---- Table 12: event category -> asset taxonomy mixture ------------------------------------
# world_context has no row in Table 12; its events draw world_context assets (ours).
ASSET_MIXTURE: dict[str, dict[str, float]] = {
    "world_context": {"world_context": 1.00},
    "objective_status": {"objective_status": 0.75, "subtitle": 0.25},
    "interaction_prompt": {"interaction_prompt": 0.75, "menu_controls": 0.25},
    "screen_notice": {"screen_notice": 0.65, "performance_debug": 0.15, "watermark": 0.10, "other_hud": 0.10},
    "ability_status": {"ability_status": 0.75, "vehicle_status": 0.25},
    "teammate_roster": {"teammate_roster": 0.60, "chat_comms": 0.25, "stream_overlay": 0.15},
    "match_status": {"match_status": 1.00},
}

# ---- Table 13: transient category profiles -------------------------------------------------


@dataclass(frozen=True)
class EventProfile:
    w_max: float
    h_max: float
    duration_s: tuple[float, float]
    fade_s: float
    opacity: float  # composited as is (Table 13 never combines it with alpha_HUD)
    anchors: tuple[str, ...]
    drift: tuple[float, float]  # total drift over the event, fraction of (W, H)
    aspect: tuple[float, float]  # category aspect bounds (ours: the paper stores but omits them)


EVENT_PROFILES: dict[str, EventProfile] = {
    "objective_status": EventProfile(
        0.340,
        0.105,
        (2.3, 5.8),
        0.35,
        0.88,
        ("lower-center", "upper-center", "center-right"),
        (0.004, 0.003),
        (1.6, 16.0),
    ),
    "interaction_prompt": EventProfile(
        0.185,
        0.120,
        (1.4, 3.8),
        0.22,
        0.86,
        ("center-right", "center-left", "near-center", "upper-center"),
        (0.010, 0.006),
        (1.0, 10.0),
    ),
    "screen_notice": EventProfile(
        0.300, 0.130, (2.0, 4.5), 0.28, 0.91, ("top-right stack", "top-left stack"), (0.002, 0.004), (1.4, 14.0)
    ),
    "ability_status": EventProfile(
        0.145,
        0.100,
        (4.0, 9.5),
        0.55,
        0.90,
        ("lower-left stack", "upper-right stack", "above weapon"),
        (0.002, 0.002),
        (0.5, 6.0),
    ),
    "teammate_roster": EventProfile(
        0.230, 0.150, (3.2, 7.0), 0.40, 0.88, ("left-mid", "right-mid", "top-left stack"), (0.004, 0.003), (0.6, 8.0)
    ),
    "match_status": EventProfile(
        0.155,
        0.090,
        (1.0, 2.6),
        0.20,
        0.88,
        ("near-center", "center-right", "upper-center"),
        (0.006, 0.014),
        (0.8, 8.0),
    ),
    # Not in Table 13 (ours): sized and drifting like Table 8's objective_marker, anchored mid-screen.
    "world_context": EventProfile(0.100, 0.120, (1.5, 4.5), 0.30, 0.90, ("world",), (0.012, 0.007), (0.25, 4.0)),
}

# Event anchors as (fx, fy) inside the margin box (positions ours: Table 13 only names them);
# stacks also carry a growth direction (+1 down, -1 up). "near-center" adds U(+-0.10) in x and y;
# "world" is a free position.
EVENT_ANCHORS: dict[str, tuple[float, float]] = {
    "lower-center": (0.5, 0.80),
    "upper-center": (0.5, 0.16),
    "center-right": (1.0, 0.45),
    "center-left": (0.0, 0.45),
    "near-center": (0.5, 0.58),
    "left-mid": (0.0, 0.50),
    "right-mid": (1.0, 0.50),
    "top-right stack": (1.0, 0.0),
    "top-left stack": (0.0, 0.0),
    "lower-left stack": (0.0, 0.80),
    "upper-right stack": (1.0, 0.14),
    "above weapon": (0.5, 0.80),
}
STACK_DIRECTION = {
    "top-right stack": 1,
    "top-left stack": 1,
    "upper-right stack": 1,
    "lower-left stack": -1,
    "above weapon": -1,
}
NEAR_CENTER_SPREAD = 0.10  # (ours)
STACK_GAP_FRAC = 0.008  # gap between stacked popups, of the shorter side (ours)

# ---- Table 14: popup animations -------------------------------------------------------------
ANIMATION_WEIGHTS: dict[str, float] = {
    "fade": 0.22,
    "instant": 0.13,
    "slide": 0.16,
    "wipe_trail": 0.18,
    "pop": 0.09,
    "border_arc": 0.22,
}
ANIMATION_TIMES_S: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {  # entrance, exit
    "fade": ((0.18, 0.58), (0.18, 0.62)),
    "slide": ((0.26, 0.72), (0.16, 0.48)),
    "wipe_trail": ((0.34, 0.82), (0.28, 0.70)),
    "pop": ((0.18, 0.46), (0.12, 0.38)),
    "instant": ((0.0, 0.0), (0.0, 0.0)),
    "border_arc": ((0.0, 0.0), (0.0, 0.0)),
}
TRANSITION_CAP = 0.32  # entrance and exit each at most 32 % of the event
ARC_HEIGHT = (0.14, 0.34)  # of the shorter frame side
ARC_NOISE_AMPLITUDE = (0.010, 0.032)  # of the shorter frame side, along the arc's normal
ARC_NOISE_CYCLES = (1.7, 3.8)
SLIDE_DISTANCE = (0.06, 0.14)  # entrance shift, fraction of W (ours)
SLIDE_EXIT_RATIO = (0.35, 0.6)  # exit shift as a fraction of the entrance shift (ours)
POP_START_SCALE = 0.55  # pop grows from, and shrinks toward, this scale (ours)
POP_FADE_IN_SHARE = 0.4  # pop's opacity ramps up over this share of its entrance (ours)
POP_OVERSHOOT = 1.70158  # the usual ease-out-back constant (about 10 % overshoot)
WIPE_TRAIL_FRAC = (0.12, 0.30)  # soft trail behind the reveal front, of the widget width (ours)
WIPE_JAGGED_FRAC = (0.04, 0.12)  # row-to-row irregularity of the front, of the width (ours)
WIPE_ROW_CYCLES = (7.0, 23.0)  # high-frequency modulation cycles over the widget height (ours)

# ---- Appendix E.1: dynamic status bars ----------------------------------------------------
# Smooth(t; period, phase, lo, hi) for health (Eq. 13) and stamina (Eq. 14).
HEALTH_SIGNAL = (9.0, 0.2, 0.42, 0.96)
STAMINA_SIGNAL = (5.0, 1.6, 0.25, 0.92)
SMOOTH_SECONDARY = (2.7, 0.35)  # secondary wave: period multiple and weight (ours)
UNFILLED_GAIN = 0.30  # unfilled saturated pixels keep 30 % of their intensity
SATURATED_MIN = 0.28  # HSV saturation above which a bar pixel counts as coloured (ours)

# ---- Appendix E.2: inventory -----------------------------------------------------------------
INVENTORY_STATE_S = (3.2, 7.8)
INVENTORY_OCCUPANCY = (0.62, 1.0)
ICON_FIT = 0.78
ICON_JITTER_FRAC = 0.05  # of the slot size (ours: "small seeded jitter")
ICON_OPACITY = 0.96  # E.2: icons are composited at 0.96, not combined with alpha_HUD
ICON_MAX_PER_VIDEO = 120
ICON_MIN_PX = 8
ICON_ASPECT = (0.15, 5.8)

# ---- Appendix D: aesthetic matching ----------------------------------------------------------
KEYFRAMES = 8
VISUAL_WEIGHTS = (0.70, 0.30)  # median, max
NEURAL_MIX = (0.68, 0.32)  # visual, neural
TEMPERATURE = (0.025, 0.24)  # tau = max(0.025, 0.24 * range)
TOP_ALTERNATIVES = 5


@dataclass(frozen=True)
class SynthProfile:
    """What one synthesized sample looks like; defaults are the 720p five-second profile."""

    width: int = 1280
    height: int = 720
    fps: float = 30.0
    duration_s: float = 5.0
    style: str = "auto"  # auto | one of STYLES
    opacity: float = HUD_OPACITY
    jitter: tuple[float, float] = (0.018, 0.018)
    collision_threshold: float = 0.14
    aspect_fallback_area: float = 0.04
    alpha_threshold: int = 8
    dynamic_status: bool = True
    inventory_states: bool = True
    transients: bool = True
    popups: str = "five_second"  # five_second (Eq. 8) | bernoulli (general profile)
    # Ours, off by default: the paper composites events at Table 13's opacity alone; on, each
    # event's opacity is multiplied by the style's alpha_HUD (Eq. 7) as well.
    event_opacity_times_hud: bool = False
    aesthetic: bool = False
    keyframes: int = KEYFRAMES
    include_unverified: bool = False
    # Ours: translucent bands and panels behind widgets at the surveyed rates (backing.py).
    backings: bool = True
    # Ours: kill feed, chat, console and corner text at the surveyed rates (text_blocks.py).
    text_blocks: bool = True
    # Ours: name tags, markers and damage numbers on tracked points of the clip (anchored.py), and
    # small procedural crosshairs at the surveyed share (crosshairs.py).
    anchored: bool = True
    small_crosshairs: bool = True

    def __post_init__(self):
        if self.style != "auto" and self.style not in STYLES:
            raise ValueError(f"unknown style {self.style!r}; use auto or one of {sorted(STYLES)}")
        if self.popups not in ("five_second", "bernoulli"):
            raise ValueError(f"popups must be five_second or bernoulli, not {self.popups!r}")

    @property
    def frame_count(self) -> int:
        return round(self.duration_s * self.fps)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> SynthProfile:
        d = dict(d)
        d["jitter"] = tuple(d["jitter"])
        return cls(**d)

    def with_size(self, width: int, height: int, fps: float, duration_s: float) -> SynthProfile:
        return replace(self, width=width, height=height, fps=fps, duration_s=duration_s)

    @classmethod
    def tiny(cls, **overrides) -> SynthProfile:
        """A small, short profile for tests and smoke runs: same tables, a 320x180 1 s clip."""
        return cls(**{"width": 320, "height": 180, "fps": 30.0, "duration_s": 1.0, **overrides})
