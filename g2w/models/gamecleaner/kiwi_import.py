"""Import a Kiwi-Edit stage checkpoint (the paper's starting point) into a g2w GameCleaner checkpoint.

The key layout was learned from Kiwi-Edit's public conversion script (`utils/convert_diffusers/
convert_weights.py` in its repository); no code is taken from it. Released checkpoints are
DiffSynth state dicts, keys optionally prefixed `pipe.` and/or `dit.`:

| Kiwi-Edit key                                        | g2w key                                                  |
|------------------------------------------------------|----------------------------------------------------------|
| `blocks.{i}.self_attn.{q,k,v,o}.lora_{A,B}[.default].weight`  | `dit.transformer.blocks.{i}.attn1.to_{q,k,v,out.0}.lora_{A,B}.default.weight` |
| `blocks.{i}.cross_attn.{q,k,v,o}.lora_…`             | `… .attn2.to_{q,k,v,out.0}.lora_…`                       |
| `blocks.{i}.ffn.{0,2}.lora_…`                         | `… .ffn.net.0.proj.lora_…`, `… .ffn.net.2.lora_…`       |
| `vae_condition[.patch_embedding].{weight,bias}`      | `dit.source_embed.{weight,bias}` (PE_src)                |
| `ref_vae_condition[.patch_embedding].{weight,bias}`  | `dit.reference_embed.{weight,bias}`                      |
| `mllm.video_queries.q`                               | `condition.queries`                                      |
| `mllm.connector.{0,2}.{weight,bias}` (also `connetor`) | `condition.connector.{0,2}.{weight,bias}`             |

Kiwi-Edit weights the source residual by the scheduler's sigma(t); g2w's gamma(t) = a + b*sigma
starts at (0, 1), which is that, so `dit.gamma` is written as (0, 1). Its image/reference query
sets and reference connector (`mllm.image_queries.q`, `mllm.ref_queries.q`, `mllm.ref_connector.*`)
have no g2w counterpart (GameCleaner conditions on the video queries) and are reported as ignored;
LoRA on the MLLM (`mllm.….lora_*`) must be merged into the Qwen2.5-VL folder first, and full DiT
weights (not LoRA) into the Wan folder: both are refused with the keys named.
"""

from __future__ import annotations

import re

import torch

_LORA = re.compile(r"^blocks\.(\d+)\.(self_attn|cross_attn|ffn)\.(q|k|v|o|0|2)\.(lora_[AB])(?:\.default)?\.weight$")
_ATTN = {"self_attn": "attn1", "cross_attn": "attn2"}
_PROJ = {"q": "to_q", "k": "to_k", "v": "to_v", "o": "to_out.0"}
_FFN = {"0": "ffn.net.0.proj", "2": "ffn.net.2"}
_EMBED = {"vae_condition": "dit.source_embed", "ref_vae_condition": "dit.reference_embed"}
_IGNORED = ("mllm.image_queries.q", "mllm.ref_queries.q", "mllm.ref_connector.")


def _strip(key: str) -> str:
    for prefix in ("pipe.", "dit."):
        key = key.removeprefix(prefix)
    return key


def _map(key: str) -> str | None:
    m = _LORA.match(key)
    if m:
        block, part, proj, ab = m.groups()
        target = _FFN[proj] if part == "ffn" else f"{_ATTN[part]}.{_PROJ[proj]}"
        return f"dit.transformer.blocks.{block}.{target}.{ab}.default.weight"
    for name, ours in _EMBED.items():
        for inner in (f"{name}.patch_embedding.", f"{name}."):
            if key.startswith(inner) and key[len(inner) :] in ("weight", "bias"):
                return f"{ours}.{key[len(inner) :]}"
    if key == "mllm.video_queries.q":
        return "condition.queries"
    m = re.match(r"^mllm\.conn(?:ector|etor)\.([02])\.(weight|bias)$", key)
    if m:
        return f"condition.connector.{m.group(1)}.{m.group(2)}"
    return None


def convert_kiwi_state(state: dict[str, torch.Tensor]) -> tuple[dict[str, torch.Tensor], list[str]]:
    """Kiwi-Edit state dict -> (g2w checkpoint state, ignored keys). Raises KeyError naming keys it cannot place."""
    out, ignored, refused = {}, [], []
    for key, value in state.items():
        plain = _strip(key)
        mapped = _map(plain)
        if mapped is not None:
            out[mapped] = value.float()
        elif plain.startswith(_IGNORED):
            ignored.append(key)
        else:
            refused.append(key)
    if refused:
        shown = ", ".join(sorted(refused)[:8])
        raise KeyError(
            f"Kiwi-Edit checkpoint has {len(refused)} keys GameCleaner cannot import "
            f"(MLLM LoRA or full DiT weights must be merged into the base folders first): {shown}"
        )
    out["dit.gamma"] = torch.tensor([0.0, 1.0])
    return out, sorted(ignored)


def import_kiwi(kiwi_path: str, config, output: str) -> list[str]:
    """Convert the Kiwi-Edit checkpoint at `kiwi_path` for preset `config` into a g2w checkpoint
    at `output`; names and shapes are checked against the model (built on the meta device, so no
    memory is spent). Returns the ignored keys."""
    import json

    from safetensors.torch import load_file, save_file

    from g2w.models.gamecleaner.model import GameCleaner, build_transformer

    state, ignored = convert_kiwi_state(load_file(kiwi_path))
    with torch.device("meta"):
        model = GameCleaner(config, build_transformer(config, None), train_connector=False)
    expected = {n: tuple(p.shape) for n, p in model.checkpoint_state().items()}
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    shapes = sorted(k for k in set(state) & set(expected) if tuple(state[k].shape) != expected[k])
    if missing or unexpected or shapes:
        raise KeyError(
            f"{kiwi_path} does not fit preset {config.name}: missing {missing[:8]}, "
            f"unexpected {unexpected[:8]}, wrong shape {shapes[:8]}"
        )
    save_file(
        {k: v.contiguous() for k, v in state.items()},
        output,
        metadata={"preset": config.name, "config": json.dumps(config.to_dict()), "imported_from": kiwi_path},
    )
    return ignored
