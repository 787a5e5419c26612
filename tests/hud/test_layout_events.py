"""Persistent layout (collisions, jitter, motion) and transient events (counts, stacks, timing)."""

from collections import Counter

import pytest

from g2w.hud.annotate import annotate_record
from g2w.hud.layout import envelope, motion_offset, resolve_collisions, rho
from g2w.hud.plan import plan_sample
from g2w.hud.profile import COLLISION_PAD_FRAC, EVENT_POLICY, EVENT_PROFILES, STACK_DIRECTION, SynthProfile
from g2w.hud.seeds import SeedStreams
from g2w.types import Box

STILL = {"moving": False, "amplitude": [0.0, 0.0], "phase": [0.0, 0.0], "period_s": [5.0, 6.0]}


def widget(i, priority, preferred, support, motion=STILL):
    return {"id": f"w{i}", "priority": priority, "preferred": preferred, "support": support, "motion": motion}


def test_rho_is_overlap_over_the_smaller_rectangle():
    assert rho(Box(0, 0, 10, 10), Box(5, 0, 25, 10)) == pytest.approx(0.5)
    assert rho(Box(0, 0, 10, 10), Box(2, 2, 4, 4)) == 1.0
    assert rho(Box(0, 0, 10, 10), Box(10, 0, 20, 10)) == 0.0


def test_collisions_keep_every_pair_under_the_threshold_and_move_lower_priority():
    ws = [widget(i, 100 - i, [300.0, 200.0], [0, 0, 120, 60]) for i in range(5)]
    resolve_collisions(ws, 1280, 720, 0.14)
    placed = [w for w in ws if not w["suppressed"]]
    assert len(placed) == 5
    assert ws[0]["xy"] == [300, 200] and ws[0]["collision"]["displacement"] == [0, 0]  # top priority stays
    for a in placed:
        for b in placed:
            if a is not b:
                assert rho(Box.from_list(a["collision"]["rect"]), Box.from_list(b["collision"]["rect"])) <= 0.14
        assert 0 <= a["xy"][0] and a["xy"][0] + 120 <= 1280 and 0 <= a["xy"][1] and a["xy"][1] + 60 <= 720


def test_a_widget_is_suppressed_only_when_nothing_fits():
    big = [widget(0, 90, [0.0, 0.0], [0, 0, 1200, 660]), widget(1, 80, [10.0, 10.0], [0, 0, 1100, 600])]
    resolve_collisions(big, 1280, 720, 0.14)
    assert big[0]["suppressed"] is False and big[1]["suppressed"] is True
    roomy = [widget(0, 90, [0.0, 0.0], [0, 0, 300, 300]), widget(1, 80, [10.0, 10.0], [0, 0, 300, 300])]
    resolve_collisions(roomy, 1280, 720, 0.14)
    assert not any(w["suppressed"] for w in roomy)


def test_collision_rectangles_include_padding_and_the_motion_envelope():
    moving = {"moving": True, "amplitude": [7.4, 3.2], "phase": [0.3, 1.0], "period_s": [6.0, 8.0]}
    ws = [widget(0, 50, [100.0, 100.0], [2, 3, 42, 23], moving)]
    resolve_collisions(ws, 1280, 720, 0.14)
    pad = round(COLLISION_PAD_FRAC * 720)
    x, y = ws[0]["xy"]
    assert ws[0]["collision"]["rect"] == [x + 2 - pad - 8, y + 3 - pad - 4, x + 42 + pad + 8, y + 23 + pad + 4]
    assert envelope(moving) == (8, 4)
    offsets = [motion_offset(moving, t / 30) for t in range(600)]
    assert max(abs(dx) for dx, _ in offsets) <= 8 and max(abs(dy) for _, dy in offsets) <= 4


def test_planned_layouts_respect_jitter_threshold_and_frame(library):
    prof = SynthProfile()
    for seed in range(60):
        rec = plan_sample(SeedStreams(seed), prof, library)
        placed = [w for w in rec["persistent"] if "skipped" not in w and not w["suppressed"]]
        for w in placed:
            assert abs(w["jitter"][0]) <= 0.018 * 1280 and abs(w["jitter"][1]) <= 0.018 * 720
            x, y = w["xy"]
            ex, ey = envelope(w["motion"])
            s = w["support"]
            assert x + s[0] - ex >= 0 and x + s[2] + ex <= 1280 and y + s[1] - ey >= 0 and y + s[3] + ey <= 720
        rects = [Box.from_list(w["collision"]["rect"]) for w in placed]
        for i in range(len(rects)):
            for j in range(i + 1, len(rects)):
                assert rho(rects[i], rects[j]) <= 0.14


def test_event_counts_respect_category_maxima_and_timing_fits_the_clip(library):
    prof = SynthProfile(popups="bernoulli")
    for seed in range(80):
        rec = plan_sample(SeedStreams(seed), prof, library)
        counts = Counter(rec["popups"]["categories"])
        assert all(counts[c] <= EVENT_POLICY[c][1] for c in counts)
        for ev in rec["events"]:
            if "skipped" in ev:
                continue
            lo, hi = EVENT_PROFILES[ev["category"]].duration_s
            assert lo <= ev["duration_s"] <= hi or ev["duration_s"] == pytest.approx(5.0)
            assert 0 <= ev["start_s"] and ev["start_s"] + ev["duration_s"] <= 5.0 + 1e-9
            assert ev["anchor"] in EVENT_PROFILES[ev["category"]].anchors


def _covisible_stack_pairs(rec):
    live = [
        e
        for e in rec["events"]
        if "skipped" not in e and e["anchor"] in STACK_DIRECTION and e["animation"]["kind"] != "border_arc"
    ]
    for i, a in enumerate(live):
        for b in live[i + 1 :]:
            if a["anchor"] == b["anchor"] and a["start_frame"] < b["end_frame"] and b["start_frame"] < a["end_frame"]:
                yield a, b


def test_stacked_popups_never_overlap_while_both_are_on_screen(library):
    prof = SynthProfile.tiny(width=480, height=270, duration_s=2.0, popups="bernoulli")
    checked = 0
    for seed in range(120):
        rec = plan_sample(SeedStreams(seed), prof, library)
        pairs = list(_covisible_stack_pairs(rec))
        if not pairs:
            continue
        ann = annotate_record(rec, library.image)
        for a, b in pairs:
            for frame in ann["frames"][max(a["start_frame"], b["start_frame"]) : min(a["end_frame"], b["end_frame"])]:
                boxes = {o["id"]: Box.from_list(o["box"]) for o in frame["objects"]}
                if a["id"] in boxes and b["id"] in boxes:
                    assert boxes[a["id"]].intersect(boxes[b["id"]]).empty, (seed, a["id"], b["id"], frame["frame"])
                    checked += 1
    assert checked > 50  # the check really ran on many co-visible stacked pairs


def test_style_choice_is_uniform_over_the_five_presets(library):
    styles = Counter(plan_sample(SeedStreams(s), SynthProfile(), library)["style"]["name"] for s in range(300))
    assert set(styles) == {"adventure", "tactical", "rpg", "survival", "arena"}
    assert min(styles.values()) > 40 and max(styles.values()) < 80  # 60 expected each
