"""`g2w remove --method gamecleaner` with its speed options, on CPU with the tiny preset: a chosen
attention backend and a compiled DiT give the same edit as the defaults, each setting loads its
own model (the worker's cache is keyed by them), diffusers' global default is left alone, and a
backend the worker cannot run is an error row before any model loads."""

import numpy as np
import pytest
from diffusers.models.attention_dispatch import AttentionBackendName, _AttentionBackendRegistry

from g2w.cases.case import Case
from g2w.jobs.remove import remove_one
from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset
from g2w.remove import gamecleaner as gc
from g2w.video import FrameReader


@pytest.fixture
def setup(tmp_path, make_video):
    weights = str(tmp_path / "w.safetensors")
    load_gamecleaner(None, get_preset("tiny"), seed=4).save(weights)
    case = Case("c1", "test", make_video("c1.mp4", frames=24, fps=24, width=64, height=48), "")
    return case, weights, tmp_path


def _edit(case, weights, path, **options) -> np.ndarray:
    frames = gc.gamecleaner(case, str(path), weights, steps=2, **options)
    assert frames == 24
    reader = FrameReader(str(path))
    return reader.read(list(range(len(reader))))


def _model_backends(weights, **key) -> set:
    model, _ = gc._loaded(gc.weights_path(weights), None, None, "cpu", 0, *key.values())
    return {m.processor._attention_backend for m in model.dit.transformer.modules() if hasattr(m, "processor")}


def test_a_chosen_backend_gives_the_default_edit_with_its_own_model_and_the_global_default_kept(setup):
    case, weights, tmp = setup
    gc._loaded.cache_clear()
    before = _AttentionBackendRegistry._active_backend
    default = _edit(case, weights, tmp / "default.mp4")
    math = _edit(case, weights, tmp / "math.mp4", attention="_native_math")
    assert _AttentionBackendRegistry._active_backend == before
    assert gc._loaded.cache_info().misses == 2  # the second setting did not reuse the first model
    assert _model_backends(weights, attention="_native_math") == {AttentionBackendName._NATIVE_MATH}
    np.testing.assert_allclose(math.astype(int), default.astype(int), atol=1)


def test_a_backend_the_worker_cannot_run_is_an_error_row_naming_it(setup):
    case, weights, tmp = setup
    gc._loaded.cache_clear()
    row = remove_one("gamecleaner", case, str(tmp / "out"), {"checkpoint": weights, "attention": "_native_cudnn"})
    assert (row["status"], row["reason"]) == ("error", "attention_unavailable")
    assert "'_native_cudnn' needs a CUDA device" in row["message"]
    assert gc._loaded.cache_info().misses == 0  # refused before the model loaded


@pytest.mark.slow
def test_a_compiled_dit_gives_the_same_edit(setup):
    case, weights, tmp = setup
    gc._loaded.cache_clear()
    default = _edit(case, weights, tmp / "default.mp4")
    compiled = _edit(case, weights, tmp / "compiled.mp4", compile=True, attention="native")
    model, _ = gc._loaded(gc.weights_path(weights), None, None, "cpu", 0, "native", True)
    assert all(b._compiled_call_impl is not None for b in model.dit.transformer.blocks)
    np.testing.assert_allclose(compiled.astype(int), default.astype(int), atol=1)
