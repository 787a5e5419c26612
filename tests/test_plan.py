"""Capacity planning from a run's summary: unit costs, scaling with nodes, cost and bottleneck."""

import json

import pytest

from g2w.cli import main
from g2w.runtime.plan import NodeType, UnitCosts, plan

SUMMARY = {
    "timings_s": {"probe": 2.0, "analyse_embed": 100.0, "select": 5.0, "standardize": 40.0},
    "counts": {"windows": 200, "kept": 50},
    "throughput": {"sources_analysed": 10, "source_seconds_per_s": 10.0},
    "sources": {"total": 10},
    "cluster": {"CPU": 2.0, "GPU": 0},
    "embedding_model": {"device": "cpu"},
    "config": {"window_s": 5.0},
}
CPU, HEAD = NodeType("c", 32, 0, 2.0), NodeType("h", 8, 0, 0.5)


def test_unit_costs_come_from_the_measured_stages():
    u = UnitCosts.from_summary(SUMMARY)
    assert u.analyse_core_s_per_video_s == pytest.approx(2 * 100 / 1000)  # 1000 s of video on 2 cores in 100 s
    assert u.standardize_core_s_per_clip == pytest.approx(2 * 40 / 50)
    assert u.windows_per_clip == 4 and u.video_s_per_source == 100


def test_twice_the_nodes_halves_the_parallel_stages_and_selection_is_the_floor():
    u = UnitCosts.from_summary(SUMMARY)
    one, two = plan(u, 100_000, 5.0, CPU, 10, HEAD, 600.0), plan(u, 100_000, 5.0, CPU, 20, HEAD, 600.0)
    for stage in ("probe", "analyse_embed", "standardize"):
        assert two["stage_hours"][stage] == pytest.approx(one["stage_hours"][stage] / 2, rel=0.02)
    assert (
        one["stage_hours"]["select"] == two["stage_hours"]["select"] == pytest.approx((5 + 600 * 0.4) / 3600, rel=0.02)
    )
    assert one["windows"] == 400_000 and one["video_hours"] == pytest.approx(400_000 * 5 / 3600, abs=0.1)
    hours = sum(one["stage_hours"].values())
    assert one["cost_usd"] == pytest.approx(hours * (0.5 + 10 * 2.0), rel=0.02)
    assert plan(u, 10**6, 5.0, CPU, 1, HEAD, 600.0)["bottleneck"] == "analyse_embed"


def test_gpus_only_help_when_their_rate_is_given_and_are_billed_for_analysis_only():
    u = UnitCosts.from_summary(SUMMARY)
    gpu = NodeType("g", 16, 1, 3.0)
    slow = plan(u, 10**6, 5.0, CPU, 30, HEAD, 600.0, gpu=gpu, gpu_nodes=2, gpu_windows_per_s=10.0)
    assert slow["stage_hours"]["analyse_embed"] == pytest.approx(4e6 / 20 / 3600, rel=0.01)  # the GPUs set the pace
    assert plan(u, 10**6, 5.0, CPU, 30, HEAD, 600.0, gpu=gpu, gpu_nodes=2)["nodes"]["gpu"]["count"] == 0


def test_a_summary_that_measured_nothing_is_refused():
    skipped = {**SUMMARY, "throughput": {"sources_analysed": 0, "source_seconds_per_s": None}}
    with pytest.raises(ValueError, match="analysed"):
        UnitCosts.from_summary(skipped)


def test_the_command_writes_a_table_json_and_plot(tmp_path, capsys):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(SUMMARY))
    assert main(["plan", "--clips", "1000000", "--from", str(path), "--output", str(tmp_path / "plan")]) == 0
    out = capsys.readouterr().out
    assert "| **wall** |" in out and "(bottleneck)" in out
    saved = json.loads((tmp_path / "plan" / "plan.json").read_text())
    assert saved["plan"]["clips"] == 10**6 and len(saved["sweep"]) > 3
    assert (tmp_path / "plan" / "plan.png").stat().st_size > 5000


# --- plans from a measured stage-cost profile -------------------------------------------------
from g2w.runtime.plan_profile import Goal, Prices, Storage, load_profile, plan_from_profile, s3_requests  # noqa: E402

PROFILE = {
    "window_s": 5.0,
    "corpus": {"windows": 16, "selection": {"kept": 8, "rejected": 8}},
    "header": {"machine": "test", "command": "stage_costs", "commit": "abc", "date": "today"},
    "bytes": {"source_per_source_s": 1e6, "source_per_clip": 5e6, "clip_out_per_clip": 4 << 20},
    "stages": {
        "probe": {"cpu_s_per_source_s": 0.01},
        "analyse_total": {"cpu_s_per_source_s": 0.3},
        "clip_embed_cpu": {"cpu_s_per_source_s": 0.3},
        "standardize_encode": {"cpu_s_per_source_s": 2.0},
        "clip_embed_gpu": {"rate": "not measured"},
    },
}
FREE = Prices(s3_put_per_1000=0.0, s3_get_per_1000=0.0)


def test_a_profile_missing_a_stage_is_refused_by_name(tmp_path):
    bad = {**PROFILE, "stages": {k: v for k, v in PROFILE["stages"].items() if k != "standardize_encode"}}
    (tmp_path / "p.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="standardize_encode"):
        load_profile(str(tmp_path / "p.json"))
    (tmp_path / "ok.json").write_text(json.dumps(PROFILE))
    assert load_profile(str(tmp_path / "ok.json"))["window_s"] == 5.0
    (tmp_path / "none_kept.json").write_text(json.dumps({**PROFILE, "corpus": {"windows": 4, "selection": {}}}))
    with pytest.raises(ValueError, match="kept count"):
        load_profile(str(tmp_path / "none_kept.json"))


def test_windows_per_clip_come_from_the_profile_unless_given():
    three = {**PROFILE, "corpus": {"windows": 30, "selection": {"kept": 10, "rejected": 20}}}
    r = plan_from_profile(three, 1000, 10)
    assert (
        r["windows"] == 3000
        and r["candidate_cap"]["windows_per_clip_from"] == "the profile's corpus: 30 windows, 10 kept"
    )
    assert "3 windows analysed per kept clip (the profile's corpus: 30 windows, 10 kept)" in r["assumptions"]
    given = plan_from_profile(three, 1000, 10, windows_per_clip=1.5)
    assert given["windows"] == 1500 and "(given)" in given["assumptions"]


def test_core_seconds_scale_from_the_profile_and_spot_prices_the_workers():
    r = plan_from_profile(
        PROFILE, 1000, 10, 8, prices=FREE, windows_per_clip=2.0, select_s_per_million=0.0, ramp_up_s=0.0
    )
    video_s = 1000 * 2 * 5.0
    assert r["core_hours"]["analyse_total"] == pytest.approx(0.3 * video_s / 3600, abs=0.05)
    assert r["stage_hours"]["standardize_encode"] == pytest.approx(2.0 * 1000 * 5 / 80 / 3600, rel=0.01)
    hours = (0.01 + 0.3 + 0.3) * video_s / 80 / 3600 + 2.0 * 5000 / 80 / 3600
    assert r["wall_hours"] == pytest.approx(hours, abs=0.01)
    assert r["cost_usd"]["compute_spot"] == pytest.approx(hours * (10 * 0.55 + 0.384), rel=0.03)
    assert r["cost_usd"]["compute_on_demand"] > r["cost_usd"]["compute_spot"]
    assert r["bottleneck"] == "standardize_encode"
    double = plan_from_profile(PROFILE, 1000, 10, 8, prices=Prices(cpu_spot=1.1, s3_put_per_1000=0, s3_get_per_1000=0))
    assert double["cost_usd"]["compute_spot"] > r["cost_usd"]["compute_spot"]


def test_storage_requests_count_buffered_reads_and_multipart_uploads():
    req = s3_requests(100, 2.0, PROFILE, Storage(read_block_bytes=1 << 20, part_bytes=1 << 20))
    read = 100 * 2 * 5 * 1e6 + 100 * 5 * 1e6  # analysis reads every window, encoding the kept ones again
    assert req["bytes_read"] == read and req["get"] == -(-read // (1 << 20)) + 100
    assert req["put"] == 100 * (4 + 2)  # 4 MiB clips in 1 MiB parts, plus create and complete
    assert s3_requests(100, 2.0, PROFILE, Storage())["put"] == 100  # one part: a single PUT
    r = plan_from_profile(PROFILE, 100, 1, prices=Prices(egress_per_gb=0.1))
    moved = req["bytes_read"] + 100 * (4 << 20)
    assert r["cost_usd"]["egress"] == pytest.approx(moved / 1e9 * 0.1, abs=0.01)
    assert plan_from_profile(PROFILE, 10**6, 10)["cost_usd"]["s3_requests"] > 0


def test_ramp_up_adds_once_to_the_wall_whatever_the_node_count():
    a = plan_from_profile(PROFILE, 1000, 10, ramp_up_s=0.0)
    b = plan_from_profile(PROFILE, 1000, 10, ramp_up_s=3600.0)
    assert b["wall_hours"] - a["wall_hours"] == pytest.approx(1.0, abs=0.01)
    assert b["stage_hours"]["ramp_up"] == 1.0 and b["bottleneck"] != "ramp_up"


def test_the_goal_verdict_says_what_misses_and_by_how_much():
    from g2w.runtime.plan_profile import verdict

    slow = plan_from_profile(PROFILE, 10**6, 5, max_candidates=10**6)
    assert not slow["goal"]["met"] and slow["goal"]["wall_over_hours"] == pytest.approx(
        slow["wall_hours"] - 4, abs=0.01
    )
    assert slow["goal"]["cpu_nodes_for_wall"] > 5
    assert "NOT met" in verdict(slow) and "h over 4 h" in verdict(slow)
    enough = plan_from_profile(PROFILE, 10**6, slow["goal"]["cpu_nodes_for_wall"], max_candidates=10**6)
    assert enough["wall_hours"] <= 4.0
    capped = plan_from_profile(PROFILE, 10**6, 200, max_candidates=100_000)
    assert capped["candidate_cap"]["caps_the_run"] and not capped["goal"]["met"]
    assert "candidate cap" in verdict(capped)
    small = plan_from_profile(PROFILE, 1000, 10, goal=Goal(4.0, 200.0))
    assert small["goal"]["met"] and verdict(small).startswith("Goal met")
    pricey = plan_from_profile(PROFILE, 10**6, 100, max_candidates=10**6, prices=Prices(cpu_spot=100.0))
    assert not pricey["goal"]["cost_reachable"] and "no node count" in verdict(pricey)


def test_the_command_plans_from_a_profile_and_writes_a_results_page(tmp_path, capsys):
    (tmp_path / "p.json").write_text(json.dumps(PROFILE))
    page = tmp_path / "plan.md"
    args = ["plan", "--clips", "1000000", "--profile", str(tmp_path / "p.json"), "--cpu-spot", "0.5"]
    assert main([*args, "--max-candidates", "1000000", "--results", str(page)]) == 0
    out = capsys.readouterr().out
    assert "(bottleneck)" in out and "$0.5/h spot" in out and "GETs" in out and "Goal (4 h wall" in out
    assert "Command: `g2w plan" in page.read_text() and "Profile: stage_costs at commit abc" in page.read_text()
    assert main(["plan", "--clips", "10"]) == 2  # neither --from nor --profile
    (tmp_path / "bad.json").write_text("{}")
    assert main(["plan", "--clips", "10", "--profile", str(tmp_path / "bad.json")]) == 2
