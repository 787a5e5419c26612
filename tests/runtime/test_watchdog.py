"""The budget and the stall diagnosis as plain logic: no Ray."""

import pytest

from g2w.runtime.budget import MIN_CPUS, Budget, free_budget
from g2w.runtime.pipeline import _pool_size, budgeted
from g2w.runtime.watchdog import (
    Operator,
    StageStalled,
    diagnose,
    operators,
    stall_seconds,
    stuck_stage,
    waits_for,
)
from g2w.step import Resources

# The shape of Ray Data's no-progress message (ray.data's NoProgressGuard), two operators.
MESSAGE = """Dataset execution made no progress for at least 5s of scheduling time (timeout: 5s). No output was taken and no blocks moved through any operator's queues in that window.
Operators still running:
  - MapBatches(PrepareCases): 0 active task(s), 3 finished, 3 outputs taken
  - MapBatches(JudgeCases): 0 active task(s), 0 finished, 0 outputs taken
If this is expected, for example a UDF that is legitimately this slow ..."""

STAGES = ["PrepareCases", "JudgeCases"]


def test_operators_are_read_from_ray_datas_message():
    ops = operators(MESSAGE)
    assert [(o.name, o.active, o.finished, o.taken) for o in ops] == [
        ("MapBatches(PrepareCases)", 0, 3, 3),
        ("MapBatches(JudgeCases)", 0, 0, 0),
    ]
    fused = Operator("MapBatches(PrepareCases)->MapBatches(JudgeCases)", 0, 0, 0)
    assert fused.steps == STAGES


def test_the_stage_named_is_the_one_holding_the_work():
    prepared_but_not_judged = operators(MESSAGE)
    assert stuck_stage(prepared_but_not_judged, STAGES)[0] == "JudgeCases"
    # Nothing prepared: the judge was never given input, so the first stage is the stuck one.
    starved = [Operator("MapBatches(PrepareCases)", 0, 0, 0), Operator("MapBatches(JudgeCases)", 0, 0, 0)]
    assert stuck_stage(starved, STAGES)[0] == "PrepareCases"
    # A fused operator is named by its first step; an upstream one already finished is not listed.
    assert stuck_stage([Operator("MapBatches(PrepareCases)->MapBatches(JudgeCases)", 0, 0, 0)], STAGES)[0] == (
        "PrepareCases"
    )
    assert stuck_stage([Operator("MapBatches(JudgeCases)", 1, 0, 0)], STAGES)[0] == "JudgeCases"
    # A message in another format still names a stage of the job, never crashes.
    assert stuck_stage(operators("something else entirely"), STAGES) == ("PrepareCases", None)
    assert stuck_stage([], []) == ("unknown", None)


def test_what_the_stage_waits_for():
    held = waits_for(Operator("MapBatches(PrepareCases)", 0, 0, 0), {"CPU": 1.0, "GPU": 0.0}, {"CPU": 0.5})
    assert held.startswith("resources") and "1 CPU" in held and "0.5 CPU free" in held
    nothing = waits_for(None, {"CPU": 0.25}, {})
    assert "0.25 CPU" in nothing and "nothing free" in nothing
    hung = waits_for(Operator("MapBatches(JudgeCases)", 2, 1, 1), {"CPU": 1.0}, {"CPU": 4.0})
    assert "2 running task(s)" in hung


def test_diagnose_gives_an_error_naming_the_stage():
    err = diagnose(MESSAGE, {"PrepareCases": {"CPU": 1.0}, "JudgeCases": {"CPU": 0.25}}, {"CPU": 0.0}, 5.0)
    assert isinstance(err, StageStalled) and isinstance(err, RuntimeError)
    assert err.stage == "JudgeCases" and err.seconds == 5.0
    assert str(err).startswith("stage JudgeCases made no progress for 5 s: resources") and "0.25 CPU" in str(err)


def test_stall_seconds(monkeypatch):
    monkeypatch.delenv("G2W_STAGE_STALL_S", raising=False)
    assert stall_seconds() == 600.0 and stall_seconds(3) == 3.0
    monkeypatch.setenv("G2W_STAGE_STALL_S", "42")
    assert stall_seconds() == 42.0
    for bad in (0, -1.0):
        with pytest.raises(ValueError):
            stall_seconds(bad)


def test_the_budget_is_what_others_leave_free():
    # A 2-CPU node whose replicas hold 1.5 CPUs: the job plans for the half CPU left, less the margin.
    two_cpus = {"CPU": 2.0}
    budget = free_budget(two_cpus, two_cpus, {"CPU": 0.5})
    assert budget.cpus == pytest.approx(0.45) and budget.gpus == 0.0
    # An autoscaling cluster that can reach 16 CPUs plans for them, less what others hold now.
    assert free_budget({"CPU": 16.0}, two_cpus, {"CPU": 1.0}).cpus == pytest.approx(13.5)
    # Everything held: a floor, so the job's stages ask for something and then stall, saying so.
    assert free_budget(two_cpus, two_cpus, {}).cpus == MIN_CPUS
    assert free_budget({"CPU": 4, "GPU": 2}, {"CPU": 4, "GPU": 2}, {"CPU": 4, "GPU": 1.5}).gpus == 1.0


def test_stages_share_the_budget():
    share = Budget(0.45).share(2)
    assert share.cpus == pytest.approx(0.225)
    prepare = budgeted(Resources(num_cpus=1, batch_size=1), share)
    assert prepare.num_cpus == pytest.approx(0.225) and prepare.batch_size == 1
    assert budgeted(Resources(num_cpus=0.1), share).num_cpus == 0.1  # a lighter step keeps its own ask
    assert _pool_size(Resources(num_cpus=1), Budget(8.0)) == 8
    assert _pool_size(Resources(num_cpus=0.25, max_workers=4), Budget(8.0)) == 4
    assert _pool_size(Resources(num_cpus=0.225), share) == 1


def test_without_the_jobs_stages_any_step_ray_names_is_one():
    ops = operators(MESSAGE)
    assert stuck_stage(ops, [])[0] == "JudgeCases"
    err = diagnose(MESSAGE, {}, {"CPU": 0.5}, 3.0)
    assert err.stage == "JudgeCases" and "never scheduled" in str(err) and "0.5 CPU free" in str(err)
