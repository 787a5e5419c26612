"""Capture logic without an engine: WAD demos, pair checks, masks, annotations, planning, processes."""

from __future__ import annotations

import contextlib
import os
import re
import struct
import subprocess
import time

import numpy as np
import pytest

from g2w.capture import GAMES, get_game, wad
from g2w.capture.annotate import annotate_mask
from g2w.capture.clip import ClipSpec, capture_clip, plan_clips
from g2w.capture.game import Demo, Game, Region
from g2w.capture.pair import DILATION_PX, check_pair, mad_outside
from g2w.capture.process import run_until
from g2w.cases.annotation import parse_annotation

LAYOUT = (
    Region("status", "player_status", "persistent", (0.0, 0.75, 0.5, 1.0)),
    Region("notice", "screen_notice", "transient", (0.0, 0.0, 1.0, 0.1)),
)
W, H = 64, 48


def _make_wad(path, lumps: dict[str, bytes]) -> None:
    body, entries, offset = b"", b"", 12
    for name, data in lumps.items():
        entries += struct.pack("<ii8s", offset + len(body), len(data), name.encode())
        body += data
    path.write_bytes(struct.pack("<4sii", b"IWAD", len(lumps), 12 + len(body)) + body + entries)


def test_wad_demo_lumps_and_length(tmp_path):
    demo = bytes([109, 2, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]) + b"\x19\x00\x00\x00" * 70 + b"\x80"
    _make_wad(tmp_path / "x.wad", {"PLAYPAL": b"\0" * 30, "DEMO2": demo, "DEMO1": demo[:-9] + b"\x80", "DEMOX": b"?"})
    assert wad.demo_lumps(str(tmp_path / "x.wad")) == ["DEMO1", "DEMO2"]
    assert wad.read_lump(str(tmp_path / "x.wad"), "DEMO2") == demo
    assert wad.demo_tics(demo) == 70
    with pytest.raises(ValueError):
        wad.demo_tics(b"\x6a" + demo[1:])  # not a v1.9 demo


def _runs(frames=4):
    rng = np.random.default_rng(0)
    clean = rng.integers(0, 256, (frames, H, W, 3), dtype=np.uint8)
    hud = clean.copy()
    hud[:, 40:46, 4:20] = 255  # a status readout, inside the layout
    return hud, clean


def test_pair_mask_covers_the_hud_and_world_is_identical_outside():
    hud, clean = _runs()
    check = check_pair(hud, clean, LAYOUT)
    assert check.status == "ok", check.reason
    assert check.mask.shape == (4, H, W) and set(np.unique(check.mask)) == {0, 255}
    assert (check.mask[:, 40:46, 4:20] == 255).all()  # covers the HUD
    assert (check.mask[:, 40 - DILATION_PX : 46 + DILATION_PX, 4 - DILATION_PX : 20 + DILATION_PX] == 255).all()
    assert check.mask[:, :30].max() == 0  # nothing else
    assert check.stats["mad_outside_mask_lossless"] == 0.0
    assert mad_outside(hud, clean, np.zeros_like(check.mask)) > 0  # the HUD does count without mask


@pytest.mark.parametrize(
    "damage, reason",
    [
        ("desync", "desync"),
        ("no_hud", "hud_missing"),
        ("short", "frame_count_mismatch"),
        ("huge", "hud_too_large"),
    ],
)
def test_broken_pairs_are_rejected_with_a_reason(damage, reason):
    hud, clean = _runs()
    if damage == "desync":
        hud[2, 12:30, 20:50] ^= 1  # the world moved in one run only
    elif damage == "no_hud":
        hud[3] = clean[3]
    elif damage == "short":
        hud = hud[:3]
    else:
        hud[:, 30:, :] = 0
        hud[:, :6] = 0
    check = check_pair(
        hud, clean, LAYOUT if damage != "huge" else (Region("all", "other_hud", "persistent", (0, 0, 1, 1)),)
    )
    assert (check.status, check.reason) == ("rejected", reason)
    assert check.mask is None


def test_annotation_labels_layout_regions_and_tracks_unknown_ui():
    frames = 5
    raw = np.zeros((frames, H, W), bool)
    raw[:, 40:46, 4:20] = True  # status region
    raw[1:3, 1:3, 2:30] = True  # a message, frames 1-2
    for t in range(frames):  # unknown UI drifting right, outside the layout
        raw[t, 20:26, 30 + t : 38 + t] = True
    raw[0, 30, 60] = True  # a speck: in the mask, not annotated
    ann = annotate_mask(raw, LAYOUT, 30)
    parsed = parse_annotation(ann)  # what g2w evaluate reads
    assert parsed.frame_count == frames and len(parsed.frames) == frames
    labels = {i.id: i.label for i in parsed.instances.values()}
    assert labels == {"status": "player_status", "notice": "screen_notice", "other-1": "other_hud"}
    assert {o.id for o in parsed.objects_at(0)} == {"status", "other-1"}
    assert {o.id for o in parsed.objects_at(1)} == {"status", "notice", "other-1"}
    status = next(o for o in parsed.objects_at(4) if o.id == "status")
    assert status.box == (4 - DILATION_PX, 40 - DILATION_PX, 20 + DILATION_PX, 46 + DILATION_PX)
    assert next(o for o in parsed.objects_at(4) if o.id == "other-1").box[0] == 34 - DILATION_PX


class _Fake(Game):
    name = "fake"

    def available(self):
        return None

    def version(self):
        return "fake 1"

    def demos(self):
        return [Demo("a", "a", 20.0), Demo("b", "b", 7.5)]

    def capture_run(self, *args, **kwargs):
        raise AssertionError("not called")


def test_plan_is_deterministic_distinct_and_fits_the_demos():
    game = _Fake()
    plan = plan_clips(game, 10, seed=3)
    assert plan == plan_clips(game, 10, seed=3)
    assert len({c.clip_id for c in plan}) == len(plan) == 4  # a: 1, 7, 13; b: 1
    assert {(c.demo_id, c.start_s) for c in plan} == {("a", 1), ("a", 7), ("a", 13), ("b", 1)}
    assert len(plan_clips(game, 2, seed=3)) == 2
    assert ClipSpec.from_json(plan[0].to_json()) == plan[0]


def test_cube2_plans_long_clips_without_moving_the_short_ones():
    cube2 = GAMES["cube2"]
    demo = Demo("cube2-x", "x", 20.0)
    assert cube2.planned_s(demo, 5.0, 1.0) == 20.0  # three 5 s windows per map, as the labelled corpus has
    assert cube2.planned_s(demo, 60.0, 1.0) == 62.0  # the match runs on: one 60 s window from 1 s
    assert _Fake().planned_s(demo, 60.0, 1.0) == 20.0  # a recording ends where it ends


def test_capture_deps_script_lists_each_games_packages():
    script = open(os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "capture-deps.sh")).read()
    listed = dict(re.findall(r"^\s+(\w+)\) echo \"([^\"]+)\"", script, re.M))
    assert {g: tuple(p.split()) for g, p in listed.items()} == {n: g.packages for n, g in GAMES.items()}


def test_a_hanging_engine_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    cmd = ["sh", "-c", f"sleep 60 & echo $! > {pidfile}; wait"]
    result = run_until(cmd, env=dict(os.environ), cwd=str(tmp_path), timeout_s=1.0, log_path=str(tmp_path / "log"))
    assert result.finished_by == "timeout"
    child = int(pidfile.read_text())
    for _ in range(50):
        if subprocess.run(["kill", "-0", str(child)], capture_output=True).returncode != 0:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the engine's child survived")


def test_unknown_demo_becomes_an_error_row(tmp_path):
    row = capture_clip(ClipSpec("freedoom", "freedoom9-demo7", 1), str(tmp_path))
    assert row["status"] == "error" and row["reason"] in ("unknown_demo", "game_unavailable")
    assert not os.path.exists(row["case_dir"])
    with pytest.raises(ValueError):
        get_game("no-such-game")


def test_demo_takes_real_clips_from_the_option_or_the_environment(monkeypatch):
    from g2w.cli import build_parser

    monkeypatch.delenv("G2W_REAL_CLIPS", raising=False)
    assert build_parser().parse_args(["demo"]).real_clips is None
    assert build_parser().parse_args(["demo", "--real-clips", "/x/clean"]).real_clips == "/x/clean"
    monkeypatch.setenv("G2W_REAL_CLIPS", "/corpus/clean")
    assert build_parser().parse_args(["demo"]).real_clips == "/corpus/clean"
    args = build_parser().parse_args(["capture", "--all", "--output", "o"])
    assert args.all and args.game is None and args.clips == 4 and args.size == "1280x720"


class _LiveMatch(Game):
    """An unpaired game whose one clean run is a moving gradient (or fails when told to)."""

    name, paired = "live-test", False

    def __init__(self, fail: bool = False):
        self.fail, self.runs = fail, []

    def available(self):
        return None

    def version(self):
        return "test"

    def demos(self):
        return [Demo("live-a", "a", 20.0)]

    def capture_run(self, demo, start_s, frames, hud, width, height, fps, workdir, timeout_s, display):
        from g2w.capture.process import CaptureError

        self.runs.append(hud)
        if self.fail:
            raise CaptureError("engine_timeout", "no frames")
        os.makedirs(workdir, exist_ok=True)
        ramp = np.arange(width)[None, :, None]
        video = np.stack([np.broadcast_to((ramp + 8 * t) % 256, (height, width, 3)) for t in range(frames)])
        path = os.path.join(workdir, "frames.rgb")
        video.astype(np.uint8).tofile(path)
        return path


def test_unpaired_game_writes_one_clean_clip_and_no_case(monkeypatch, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from g2w.jobs.capture import MANIFEST_SCHEMA, _per_game, _write_cases
    from g2w.video import FrameReader

    game = _LiveMatch()
    monkeypatch.setitem(GAMES, game.name, game)
    monkeypatch.setattr("g2w.capture.clip.virtual_display", lambda w, h: contextlib.nullcontext(":0"))
    spec = ClipSpec(game.name, "live-a", 1, frames=6, width=64, height=48)
    row = capture_clip(spec, str(tmp_path))
    assert (row["status"], row["paired"], row["frames"], game.runs) == ("ok", False, 6, [False])  # one clean run
    assert len(FrameReader(row["clean_path"])) == 6 and not os.path.exists(tmp_path / "cases")
    assert capture_clip(spec, str(tmp_path))["skipped"] and game.runs == [False]  # reused
    assert set(row) == set(MANIFEST_SCHEMA.names)
    pq.write_table(pa.Table.from_pylist([row], schema=MANIFEST_SCHEMA), tmp_path / "m.parquet")
    assert _write_cases(str(tmp_path / "m.parquet"), str(tmp_path)) == 0  # no case for it
    assert _per_game([row])[game.name]["pairs"] == 0 and _per_game([row])[game.name]["hud_coverage_mean"] is None

    failing = _LiveMatch(fail=True)
    monkeypatch.setitem(GAMES, failing.name, failing)
    bad = capture_clip(ClipSpec(failing.name, "live-a", 7, frames=6, width=64, height=48), str(tmp_path))
    assert (bad["status"], bad["reason"]) == ("error", "engine_timeout") and not os.path.exists(bad["clean_path"])
