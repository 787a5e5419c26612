"""The Kiwi-Edit importer on a state dict built here in Kiwi-Edit's DiffSynth key layout."""

import pytest
import torch
from safetensors.torch import save_file

from g2w.models.gamecleaner.kiwi_import import convert_kiwi_state, import_kiwi
from g2w.models.gamecleaner.model import load_gamecleaner
from g2w.models.gamecleaner.presets import get_preset

CFG = get_preset("tiny")
_ATTN = {"attn1": "self_attn", "attn2": "cross_attn"}
_PROJ = {"to_q": "q", "to_k": "k", "to_v": "v", "to_out.0": "o"}


def _kiwi_layout(model) -> dict:
    """The model's checkpoint written with Kiwi-Edit's names (prefixes as its trainer leaves them)."""
    out = {}
    for name, p in model.checkpoint_state().items():
        v = p.detach().clone()
        if "lora_" in name:
            block, rest = name.removeprefix("dit.transformer.blocks.").split(".", 1)
            attn, proj = rest.split(".lora_")[0].split(".", 1)
            ab = "lora_" + rest.split(".lora_")[1].split(".")[0]
            out[f"pipe.dit.blocks.{block}.{_ATTN[attn]}.{_PROJ[proj]}.{ab}.default.weight"] = v
        elif name.startswith("dit.source_embed."):
            out["pipe.vae_condition.patch_embedding." + name.rsplit(".", 1)[1]] = v
        elif name.startswith("dit.reference_embed."):
            out["pipe.ref_vae_condition." + name.rsplit(".", 1)[1]] = v
        elif name == "condition.queries":
            out["pipe.mllm.video_queries.q"] = v
        elif name.startswith("condition.connector."):
            out["pipe.mllm.connetor." + name.removeprefix("condition.connector.")] = v
    out["pipe.mllm.ref_queries.q"] = torch.zeros(3, 64)
    return out


def test_kiwi_checkpoint_imports_to_the_same_weights(tmp_path):
    source = load_gamecleaner(None, CFG, seed=5)
    with torch.no_grad():
        for p in source.checkpoint_state().values():
            p.add_(torch.randn_like(p))
        source.dit.gamma.copy_(torch.tensor([0.0, 1.0]))
    kiwi = str(tmp_path / "kiwi.safetensors")
    save_file(_kiwi_layout(source), kiwi)
    out = str(tmp_path / "g2w.safetensors")
    assert import_kiwi(kiwi, CFG, out) == ["pipe.mllm.ref_queries.q"]
    loaded = load_gamecleaner(out)
    a, b = source.checkpoint_state(), loaded.checkpoint_state()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_unplaceable_kiwi_keys_are_named():
    with pytest.raises(KeyError, match="mllm.model.layers.0.q_proj.lora_B"):
        convert_kiwi_state({"mllm.model.layers.0.q_proj.lora_B.default.weight": torch.zeros(1)})
