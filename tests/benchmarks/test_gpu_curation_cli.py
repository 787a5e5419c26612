"""The GPU curation benchmark on a machine without CUDA stops at once with a clear message
instead of generating sources and failing inside the curation job."""

import importlib.util
import os
import sys

import pytest
import torch

SCRIPT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks", "gpu_curation.py"
)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only message")
@pytest.mark.parametrize("args", [[], ["--device", "cpu"]])  # CUDA asked for, or its parts alone
def test_without_cuda_it_explains_how_to_run_the_cpu_check(tmp_path, monkeypatch, capsys, args):
    spec = importlib.util.spec_from_file_location("gpu_curation_bench", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(sys, "argv", [SCRIPT, *args, "--workdir", str(tmp_path)])
    with pytest.raises(SystemExit) as stopped:
        bench.main()
    assert stopped.value.code == 2
    message = capsys.readouterr().err
    assert "no CUDA device" in message and "--device cpu --sources 2" in message
    assert not os.listdir(tmp_path)  # nothing generated
