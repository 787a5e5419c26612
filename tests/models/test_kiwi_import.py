"""The Kiwi-Edit importer on checkpoints written in Kiwi-Edit's own layout.

`kiwi_checkpoint` writes the names and shapes Kiwi-Edit's trainer saves, read from its repository
(showlab/Kiwi-Edit), not derived from g2w's mapping:
- DiffSynth's `WanModel` (`diffsynth/models/wan_video_dit.py`): `patch_embedding` Conv3d(in_dim,
  dim, patch), `text_embedding` = Sequential(Linear(text_dim, dim), GELU, Linear(dim, dim)),
  `time_embedding` = Sequential(Linear(freq_dim, dim), SiLU, Linear(dim, dim)), `time_projection`
  = Sequential(SiLU, Linear(dim, 6 dim)), per block `self_attn`/`cross_attn` with Linear `q k v o`
  and RMSNorm `norm_q norm_k` (weight only), `norm3` LayerNorm(dim) (affine), `ffn` =
  Sequential(Linear(dim, ffn_dim), GELU, Linear(ffn_dim, dim)), `modulation` [1, 6, dim], and
  `head.head` Linear(dim, out_dim * prod(patch)) with `head.modulation` [1, 2, dim];
- `ConditionalEmbedder` (`vae_condition`, `ref_vae_condition`): one `patch_embedding` Conv3d;
- the MLLM encoder (`diffsynth/models/mllm_encoder.py`): `QueryVector`s `image_queries`,
  `video_queries`, `ref_queries` (parameter `q` [n, hidden]); `connetor` (sic) and
  `ref_connector` = Sequential(Linear(hidden, dim), GELU(tanh), Linear(dim, dim));
- LoRA by PEFT's `inject_adapter_in_model` on `mllm.model.model.language_model` (q/k/v/o_proj)
  and, in the 14B stage-2 script, on `dit` (`q,k,v,o,ffn.0,ffn.2`): `<module>.lora_A.default.weight`
  [r, in] and `lora_B.default.weight` [out, r];
- saved with `--remove_prefix_in_ckpt pipe.`, so keys start `dit.`, `mllm.`, `vae_condition.`.
"""

import copy
import json
import os

import pytest
import torch
from diffusers import AutoencoderKLWan, WanTransformer3DModel
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from g2w.cli import main
from g2w.models.gamecleaner import flow
from g2w.models.gamecleaner.kiwi_import import KiwiImportError, import_kiwi
from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset

CFG = get_preset("tiny")
DIM = CFG.dit_width
TEXT = CFG.mllm["text_config"]
HIDDEN = TEXT["hidden_size"]


def _wan_model_keys(dim, in_dim, ffn_dim, layers, text_dim, freq_dim=256, patch=(1, 2, 2)) -> dict:
    """DiffSynth WanModel parameter names -> shapes (the full DiT that Kiwi's 5B stages train)."""
    keys = {
        "patch_embedding.weight": (dim, in_dim, *patch),
        "patch_embedding.bias": (dim,),
        "text_embedding.0.weight": (dim, text_dim),
        "text_embedding.0.bias": (dim,),
        "text_embedding.2.weight": (dim, dim),
        "text_embedding.2.bias": (dim,),
        "time_embedding.0.weight": (dim, freq_dim),
        "time_embedding.0.bias": (dim,),
        "time_embedding.2.weight": (dim, dim),
        "time_embedding.2.bias": (dim,),
        "time_projection.1.weight": (6 * dim, dim),
        "time_projection.1.bias": (6 * dim,),
        "head.head.weight": (in_dim * 4, dim),
        "head.head.bias": (in_dim * 4,),
        "head.modulation": (1, 2, dim),
    }
    for i in range(layers):
        for attn in ("self_attn", "cross_attn"):
            for proj in "qkvo":
                keys[f"blocks.{i}.{attn}.{proj}.weight"] = (dim, dim)
                keys[f"blocks.{i}.{attn}.{proj}.bias"] = (dim,)
            keys[f"blocks.{i}.{attn}.norm_q.weight"] = (dim,)
            keys[f"blocks.{i}.{attn}.norm_k.weight"] = (dim,)
        keys |= {
            f"blocks.{i}.norm3.weight": (dim,),
            f"blocks.{i}.norm3.bias": (dim,),
            f"blocks.{i}.ffn.0.weight": (ffn_dim, dim),
            f"blocks.{i}.ffn.0.bias": (ffn_dim,),
            f"blocks.{i}.ffn.2.weight": (dim, ffn_dim),
            f"blocks.{i}.ffn.2.bias": (dim,),
            f"blocks.{i}.modulation": (1, 6, dim),
        }
    return keys


def _lora(module: str, out_dim: int, in_dim: int, rank: int) -> dict:
    return {f"{module}.lora_A.default.weight": (rank, in_dim), f"{module}.lora_B.default.weight": (out_dim, rank)}


def kiwi_keys(full_dit=True, dim=DIM, layers=CFG.dit["num_layers"], queries=CFG.num_queries, reference=True) -> dict:
    """A Kiwi-Edit stage checkpoint's keys and shapes: 5B stage 3 (full DiT, reference) or 14B stage 2 (DiT LoRA)."""
    in_dim, ffn = CFG.dit["in_channels"], CFG.dit["ffn_dim"]
    keys = {}
    if full_dit:
        keys |= {f"dit.{k}": v for k, v in _wan_model_keys(dim, in_dim, ffn, layers, CFG.dit["text_dim"]).items()}
    else:
        for i in range(layers):
            for attn in ("self_attn", "cross_attn"):
                for proj in "qkvo":
                    keys |= _lora(f"dit.blocks.{i}.{attn}.{proj}", dim, dim, 3)
            keys |= _lora(f"dit.blocks.{i}.ffn.0", ffn, dim, 3) | _lora(f"dit.blocks.{i}.ffn.2", dim, ffn, 3)
    kv = TEXT["num_key_value_heads"] * HIDDEN // TEXT["num_attention_heads"]
    for layer in range(TEXT["num_hidden_layers"]):
        base = f"mllm.model.model.language_model.layers.{layer}.self_attn"
        for proj, out_dim in (("q_proj", HIDDEN), ("k_proj", kv), ("v_proj", kv), ("o_proj", HIDDEN)):
            keys |= _lora(f"{base}.{proj}", out_dim, HIDDEN, 2)
    keys |= {"mllm.image_queries.q": (5, HIDDEN), "mllm.video_queries.q": (queries, HIDDEN)}
    for name in ("connetor", *(("ref_connector",) if reference else ())):
        keys |= {
            f"mllm.{name}.0.weight": (dim, HIDDEN),
            f"mllm.{name}.0.bias": (dim,),
            f"mllm.{name}.2.weight": (dim, dim),
            f"mllm.{name}.2.bias": (dim,),
        }
    for name in ("vae_condition", *(("ref_vae_condition",) if reference else ())):
        keys |= {f"{name}.patch_embedding.weight": (dim, in_dim, 1, 2, 2), f"{name}.patch_embedding.bias": (dim,)}
    if reference:
        keys["mllm.ref_queries.q"] = (7, HIDDEN)
    return keys


def kiwi_checkpoint(path, keys: dict, seed=0) -> dict:
    g = torch.Generator().manual_seed(seed)
    state = {k: (torch.randn(shape, generator=g) * 0.1).to(torch.bfloat16) for k, shape in keys.items()}
    save_file(state, str(path))
    return state


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A tiny Wan base (diffusers layout) and a tiny Qwen2.5-VL folder (transformers layout)."""
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    root = tmp_path_factory.mktemp("kiwi_bases")
    torch.manual_seed(0)
    WanTransformer3DModel(**CFG.dit).save_pretrained(root / "wan" / "transformer")
    AutoencoderKLWan(**CFG.vae).save_pretrained(root / "wan" / "vae")
    Qwen2_5_VLForConditionalGeneration(Qwen2_5_VLConfig(**copy.deepcopy(CFG.mllm))).save_pretrained(root / "qwen")
    return str(root / "wan"), str(root / "qwen")


def _qwen_weights(folder) -> dict:
    return load_file(os.path.join(folder, "model.safetensors"))


def test_a_stage3_checkpoint_with_the_full_dit_and_mllm_lora_becomes_a_g2w_start(tmp_path, folders, capsys):
    wan, qwen = folders
    kiwi = kiwi_checkpoint(tmp_path / "kiwi.safetensors", kiwi_keys())
    out = str(tmp_path / "start")
    summary = import_kiwi(str(tmp_path / "kiwi.safetensors"), CFG, wan, out, mllm_dir=qwen)
    assert summary["dit"] == "full Kiwi-Edit DiT" and summary["mllm_lora_merged"] == 4 * TEXT["num_hidden_layers"]
    assert summary["ignored"] == [
        "mllm.image_queries.q",
        "mllm.ref_connector.0.bias",
        "mllm.ref_connector.0.weight",
        "mllm.ref_connector.2.bias",
        "mllm.ref_connector.2.weight",
        "mllm.ref_queries.q",
    ]
    assert json.load(open(os.path.join(out, "import.json")))["preset"] == "tiny"

    dit = WanTransformer3DModel.from_pretrained(os.path.join(out, "base", "transformer"))  # strict: every key placed
    block = dit.blocks[1]
    pairs = [
        (block.attn1.to_q.weight, "dit.blocks.1.self_attn.q.weight"),
        (block.attn2.to_out[0].bias, "dit.blocks.1.cross_attn.o.bias"),
        (block.attn2.norm_k.weight, "dit.blocks.1.cross_attn.norm_k.weight"),
        (block.norm2.weight, "dit.blocks.1.norm3.weight"),
        (block.ffn.net[2].weight, "dit.blocks.1.ffn.2.weight"),
        (block.scale_shift_table, "dit.blocks.1.modulation"),
        (dit.scale_shift_table, "dit.head.modulation"),
        (dit.proj_out.weight, "dit.head.head.weight"),
        (dit.condition_embedder.time_proj.weight, "dit.time_projection.1.weight"),
        (dit.condition_embedder.time_embedder.linear_2.weight, "dit.time_embedding.2.weight"),
    ]
    for ours, theirs in pairs:
        torch.testing.assert_close(ours.detach(), kiwi[theirs].float(), rtol=0, atol=0)

    base, merged = _qwen_weights(qwen), _qwen_weights(os.path.join(out, "mllm"))
    name = "model.layers.1.self_attn.k_proj.weight"  # Qwen2.5-VL files keep the older names, as released
    lora = "mllm.model.model.language_model.layers.1.self_attn.k_proj"
    delta = kiwi[f"{lora}.lora_B.default.weight"].float() @ kiwi[f"{lora}.lora_A.default.weight"].float()
    torch.testing.assert_close(merged[name].float(), base[name].float() + delta)
    untouched = "model.layers.1.mlp.up_proj.weight"
    assert torch.equal(merged[untouched], base[untouched])
    assert os.path.isfile(os.path.join(out, "mllm", "config.json"))

    # the command line does the same and says how to start from it
    assert (
        main(
            [
                "gamecleaner",
                "import-kiwi",
                str(tmp_path / "kiwi.safetensors"),
                "--preset",
                "tiny",
                "--base",
                wan,
                "--mllm",
                qwen,
                "--output",
                str(tmp_path / "cli"),
            ]
        )
        == 0
    )
    assert "--checkpoint" in capsys.readouterr().out
    assert (
        main(
            [
                "gamecleaner",
                "import-kiwi",
                str(tmp_path / "kiwi.safetensors"),
                "--preset",
                "wan21-1.3b",
                "--base",
                wan,
                "--output",
                str(tmp_path / "cli2"),
            ]
        )
        == 2
    )
    assert "is not the base of preset wan21-1.3b" in capsys.readouterr().err

    model = load_gamecleaner(os.path.join(out, "weights.safetensors"), base_dir=os.path.join(out, "base"))
    torch.testing.assert_close(
        model.dit.source_embed.weight.detach(), kiwi["vae_condition.patch_embedding.weight"].float()
    )
    torch.testing.assert_close(
        model.dit.reference_embed.bias.detach(), kiwi["ref_vae_condition.patch_embedding.bias"].float()
    )
    torch.testing.assert_close(model.condition.queries.detach(), kiwi["mllm.video_queries.q"].float())
    torch.testing.assert_close(model.condition.connector[2].weight.detach(), kiwi["mllm.connetor.2.weight"].float())
    torch.testing.assert_close(
        model.dit.transformer.blocks[0].attn1.to_k.base_layer.weight.detach(),
        kiwi["dit.blocks.0.self_attn.k.weight"].float(),
    )
    # fresh LoRA (B = 0): the start computes exactly the imported Kiwi-Edit DiT
    assert all(float(p.detach().abs().sum()) == 0 for n, p in model.named_parameters() if "lora_B" in n)
    z = torch.randn(1, *CFG.latent_shape())
    context = model.context(torch.randn(1, CFG.num_queries, HIDDEN))
    with torch.no_grad():
        out_z = flow.euler_sample(lambda zz, t, c, s, r: model(zz, t, s, r, context=c), context, z, None, steps=2)
    assert torch.isfinite(out_z).all()


def test_a_14b_stage2_checkpoint_merges_its_dit_lora_into_the_base_and_has_no_reference_embedder(tmp_path, folders):
    wan, qwen = folders
    kiwi = kiwi_checkpoint(tmp_path / "kiwi.safetensors", kiwi_keys(full_dit=False, reference=False))
    out = str(tmp_path / "start")
    summary = import_kiwi(str(tmp_path / "kiwi.safetensors"), CFG, wan, out, mllm_dir=qwen)
    assert summary["dit"] == "base DiT + Kiwi-Edit DiT LoRA merged" and summary["dit_lora_merged"] == 10 * 2
    base = WanTransformer3DModel.from_pretrained(os.path.join(wan, "transformer"))
    dit = WanTransformer3DModel.from_pretrained(os.path.join(out, "base", "transformer"))
    lora = "dit.blocks.0.ffn.0"
    delta = kiwi[f"{lora}.lora_B.default.weight"].float() @ kiwi[f"{lora}.lora_A.default.weight"].float()
    torch.testing.assert_close(dit.blocks[0].ffn.net[0].proj.weight, base.blocks[0].ffn.net[0].proj.weight + delta)
    assert torch.equal(dit.blocks[0].attn1.to_q.bias, base.blocks[0].attn1.to_q.bias)  # LoRA leaves biases
    with safe_open(os.path.join(out, "weights.safetensors"), "pt") as f:
        assert float(f.get_tensor("dit.reference_embed.weight").abs().sum()) == 0  # never trained: zero, as at init


def test_unknown_keys_are_refused_and_named(tmp_path, folders):
    wan, qwen = folders
    keys = kiwi_keys() | {
        "mllm.model.model.visual.blocks.0.attn.qkv.lora_A.default.weight": (2, 32),
        "dit.blocks.0.self_attn.q.lora_B.default.weight": (DIM, 2),
        "dit.img_emb.proj.1.weight": (4, 4),
    }
    kiwi_checkpoint(tmp_path / "kiwi.safetensors", keys)
    out = str(tmp_path / "start")
    with pytest.raises(KiwiImportError) as err:
        import_kiwi(str(tmp_path / "kiwi.safetensors"), CFG, wan, out, mllm_dir=qwen)
    message = str(err.value)
    assert "3 keys" in message
    for key in (
        "mllm.model.model.visual.blocks.0.attn.qkv.lora_A",
        "dit.blocks.0.self_attn.q.lora_B",  # half a pair
        "dit.img_emb.proj.1.weight",
    ):
        assert key in message
    assert not os.path.exists(out)


def test_another_version_or_model_size_is_refused_before_loading_with_what_differs(tmp_path, folders, monkeypatch):
    wan, qwen = folders
    read = []
    original = safe_open

    class Recording:  # every tensor read goes through here: none may happen before the refusal
        def __init__(self, *a, **k):
            self.f = original(*a, **k)

        def __enter__(self):
            self.inner = self.f.__enter__()
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

        def get_tensor(self, name):
            read.append(name)
            return self.inner.get_tensor(name)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    import g2w.models.gamecleaner.kiwi_import as importer

    monkeypatch.setattr(importer, "safe_open", Recording)
    cases = {  # checkpoint keys -> what the refusal must name
        "bigger": (
            kiwi_keys(dim=48, layers=3),
            [
                "num_attention_heads x attention_head_dim: checkpoint 48, base 32",
                "num_layers: checkpoint 3, base 2",
                "mllm.connetor.0.weight",
            ],
        ),
        "stage1": (
            {k: v for k, v in kiwi_keys().items() if k != "mllm.video_queries.q"},
            ["missing mllm.video_queries.q"],
        ),
        "queries": (kiwi_keys(queries=CFG.num_queries * 2), ["mllm.video_queries.q (16, 64)", "num_queries"]),
    }
    for name, (keys, expected) in cases.items():
        kiwi_checkpoint(tmp_path / f"{name}.safetensors", keys)
        with pytest.raises(KiwiImportError) as err:
            import_kiwi(str(tmp_path / f"{name}.safetensors"), CFG, wan, str(tmp_path / name), mllm_dir=qwen)
        for part in expected:
            assert part in str(err.value), (name, str(err.value))
        assert not os.path.exists(tmp_path / name)
    kiwi_checkpoint(tmp_path / "ok.safetensors", kiwi_keys())
    with pytest.raises(KiwiImportError, match="8 MLLM LoRA pairs to merge: give the Qwen2.5-VL folder"):
        import_kiwi(str(tmp_path / "ok.safetensors"), CFG, wan, str(tmp_path / "x"))
    # a base of another model size than the preset: refused by its config fields, for import and training alike
    other = get_preset("wan21-1.3b")
    with pytest.raises(KiwiImportError, match="num_attention_heads: preset 12, base 2"):
        import_kiwi(str(tmp_path / "stage1.safetensors"), other, wan, str(tmp_path / "y"), mllm_dir=qwen)
    with pytest.raises(ValueError, match="ffn_dim: preset 8960, base 64"):
        load_gamecleaner(None, other, base_dir=wan)
    assert read == []
