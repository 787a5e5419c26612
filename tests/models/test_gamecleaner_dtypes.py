"""Dtypes as diffusers intends, on the tiny preset: in bf16 the base DiT's weights are bf16 save the
modules its class keeps in fp32, the RoPE tables keep diffusers' own dtype and values (computed in
float64, stored fp32; a blanket cast would round them to bf16) and everything that trains is fp32,
whether the base is random-initialised or loaded from a folder."""

import pytest
import torch
from diffusers import WanTransformer3DModel

from g2w.models.gamecleaner.model import base_dtype, build_transformer, load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset

CFG = get_preset("tiny")
KEEP = WanTransformer3DModel._keep_in_fp32_modules


def _kept(name: str) -> bool:
    return any(k in name.split(".") for k in KEEP)


def _assert_diffusers_dtypes(transformer) -> None:
    kept = {n: p.dtype for n, p in transformer.named_parameters() if _kept(n) and "lora_" not in n}
    cast = {n: p.dtype for n, p in transformer.named_parameters() if not _kept(n) and "lora_" not in n}
    assert kept and set(kept.values()) == {torch.float32}, kept
    assert cast and set(cast.values()) == {torch.bfloat16}, cast
    assert any(n.startswith("time_embedder") or ".time_embedder." in n for n in kept)
    assert "scale_shift_table" in kept and any(".norm2." in n for n in kept)
    fresh = WanTransformer3DModel(**CFG.dit).rope
    for name in ("freqs_cos", "freqs_sin"):
        torch.testing.assert_close(getattr(transformer.rope, name), getattr(fresh, name), rtol=0, atol=0)
        assert getattr(fresh, name).dtype == torch.float32


def test_a_random_initialised_bf16_model_keeps_diffusers_fp32_modules_and_trains_in_fp32():
    model = load_gamecleaner(None, CFG, dtype=torch.bfloat16)
    _assert_diffusers_dtypes(model.dit.transformer)
    trainable = model.trainable()
    assert any("lora_" in n for n in trainable)
    assert {p.dtype for p in trainable.values()} == {torch.float32}
    shape = (1, *CFG.latent_shape())
    z = torch.randn(shape)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(
            z,
            torch.tensor([0.5]),
            z,
            torch.randn(1, shape[1], 1, *shape[3:]),
            states=torch.randn(1, CFG.num_queries, 64),
        )
    assert out.shape == z.shape and torch.isfinite(out.float()).all()


def test_a_base_loaded_in_bf16_gets_the_same_dtypes_and_its_own_weights(tmp_path):
    fp32 = build_transformer(CFG, None, seed=3)
    fp32.save_pretrained(tmp_path / "transformer")
    loaded = build_transformer(CFG, str(tmp_path), dtype=torch.bfloat16)
    _assert_diffusers_dtypes(loaded)
    ours = dict(fp32.named_parameters())
    for name, p in loaded.named_parameters():
        torch.testing.assert_close(p, ours[name].to(p.dtype), rtol=0, atol=0)


@pytest.mark.parametrize(
    "device,precision,dtype",
    [("cpu", "bf16", torch.float32), ("cuda", "bf16", torch.bfloat16), ("cuda", "fp32", torch.float32)],
)
def test_the_base_is_bf16_only_where_the_step_runs_under_bf16_autocast(device, precision, dtype):
    assert base_dtype(device, precision) == dtype
