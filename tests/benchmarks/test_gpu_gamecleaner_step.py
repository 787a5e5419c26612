"""The GPU GameCleaner benchmark's dry run: the same code on the tiny preset on CPU, in seconds,
with the speed options, writing its results page; without CUDA and without --dry-run it stops
with a message naming the dry run; and a sampler's seconds per step are a whole sampling call
over its steps."""

import importlib.util
import os
import time

import pytest
import torch

SCRIPT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "benchmarks",
    "gpu_gamecleaner_step.py",
)


def _bench():
    spec = importlib.util.spec_from_file_location("gpu_gamecleaner_step_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_dry_run_trains_and_samples_tiny_on_cpu_with_a_backend_and_writes_the_page(tmp_path):
    page = tmp_path / "step.md"
    start = time.perf_counter()
    (row,) = _bench().main(["--dry-run", "--repeats", "1", "--attention", "_native_math", "--results", str(page)])
    assert time.perf_counter() - start < 60
    assert (row["preset"], row["device"], row["attention"], row["compile"]) == ("tiny", "cpu", "_native_math", False)
    assert row["train_step_s"] > 0 and row["euler50_s_per_step"] > 0 and row["unipc12_s_per_step"] > 0
    assert row["mfu"] is None and row["train_tflops"] > 0  # no peak for a CPU
    text = page.read_text()
    assert "--dry-run" in text and "at commit" in text and "| tiny |" in text and "A dry run" in text


@pytest.mark.slow
def test_the_dry_run_compiles(tmp_path):
    (row,) = _bench().main(["--dry-run", "--repeats", "1", "--compile"])
    assert row["compile"] is True and row["train_step_s"] > 0


def test_sampler_seconds_per_step_are_the_whole_call_over_its_steps(monkeypatch):
    bench = _bench()
    calls = []

    def timed_sample(dit, context, source, reference, sampler, steps, generator=None):
        calls.append((sampler, steps))
        time.sleep(0.01 * steps)  # a known cost per step, spent inside the call
        return source

    monkeypatch.setattr(bench, "sample", timed_sample)
    row = bench.measure("tiny", None, 1, torch.device("cpu"), euler_steps=20, few_steps=5)
    assert calls == [("euler", 2), ("euler", 20), ("unipc", 2), ("unipc", 5)]  # a warm-up, then the timed call
    assert row["euler20_s_per_step"] == pytest.approx(0.01, rel=0.3)
    assert row["unipc5_s_per_step"] == pytest.approx(0.01, rel=0.3)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only message")
def test_without_cuda_it_names_the_dry_run(capsys):
    with pytest.raises(SystemExit) as stopped:
        _bench().main([])
    assert stopped.value.code == 2 and "--dry-run" in capsys.readouterr().err
