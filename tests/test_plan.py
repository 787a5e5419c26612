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
