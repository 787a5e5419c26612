"""Kiwi-Edit's released checkpoint layout, key by key, and where each key goes in g2w.

Kiwi-Edit trains with DiffSynth and saves the trainable tensors of its pipeline, with the
`pipe.` prefix removed (its stage scripts pass `--remove_prefix_in_ckpt pipe.`; a `pipe.dit.`
removal leaves the DiT keys bare and `pipe.` on the rest, so both prefixes are stripped). The
layout was learned from its repository (DiffSynth's `WanModel` module tree, the
`ConditionalEmbedder`, the MLLM encoder's `QueryVector`s and connectors, PEFT LoRA names); no
code is taken from it. What a stage checkpoint holds:

| Kiwi-Edit key (after the prefix)                          | goes to                                             |
|-----------------------------------------------------------|-----------------------------------------------------|
| `blocks.{i}.self_attn.{q,k,v,o}.{weight,bias}`, `norm_{q,k}` | DiT (diffusers): `blocks.{i}.attn1.to_{q,k,v,out.0}`, `norm_{q,k}` |
| `blocks.{i}.cross_attn.…`                                 | `blocks.{i}.attn2.…`                                |
| `blocks.{i}.ffn.{0,2}`, `norm3`, `modulation`             | `ffn.net.0.proj`, `ffn.net.2`, `norm2`, `scale_shift_table` |
| `patch_embedding`, `text_embedding.{0,2}`, `time_embedding.{0,2}`, `time_projection.1`, `head.head`, `head.modulation` | `patch_embedding`, `condition_embedder.{text,time}_embedder.linear_{1,2}`, `condition_embedder.time_proj`, `proj_out`, `scale_shift_table` |
| `blocks.{i}.….lora_{A,B}[.default].weight` (DiT LoRA)     | merged into that DiT weight                          |
| `mllm.model.model.language_model.{m}.lora_{A,B}.default.weight` | merged into the Qwen2.5-VL weight `model.language_model.{m}.weight` |
| `vae_condition[.patch_embedding].{weight,bias}`           | g2w `dit.source_embed` (PE_src)                      |
| `ref_vae_condition[.patch_embedding].{weight,bias}`       | g2w `dit.reference_embed`                            |
| `mllm.video_queries.q`                                    | g2w `condition.queries`                              |
| `mllm.connetor.{0,2}` (its spelling; also `connector`)    | g2w `condition.connector.{0,2}`                      |
| `mllm.image_queries.q`, `mllm.ref_queries.q`, `mllm.ref_connector.*` | ignored, reported: GameCleaner conditions on the video queries |

Every LoRA Kiwi-Edit trains uses alpha = rank (its trainer's default), so a merge adds B @ A.
Anything else is refused by name: an unknown key means another version of the layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ATTN = {"self_attn": "attn1", "cross_attn": "attn2"}
_PROJ = {"q": "to_q", "k": "to_k", "v": "to_v", "o": "to_out.0", "norm_q": "norm_q", "norm_k": "norm_k"}
_BLOCK = re.compile(r"^blocks\.(\d+)\.(.+)$")
_TOP = {
    "patch_embedding": "patch_embedding",
    "text_embedding.0": "condition_embedder.text_embedder.linear_1",
    "text_embedding.2": "condition_embedder.text_embedder.linear_2",
    "time_embedding.0": "condition_embedder.time_embedder.linear_1",
    "time_embedding.2": "condition_embedder.time_embedder.linear_2",
    "time_projection.1": "condition_embedder.time_proj",
    "head.head": "proj_out",
}
_LORA = re.compile(r"^(.+)\.(lora_[AB])(?:\.default)?\.weight$")
MLLM_LORA_BASE = "mllm.model.model.language_model."
_EMBED = {"vae_condition": "dit.source_embed", "ref_vae_condition": "dit.reference_embed"}
_CONNECTOR = re.compile(r"^mllm\.conn(?:ector|etor)\.([02])\.(weight|bias)$")
IGNORED = ("mllm.image_queries.q", "mllm.ref_queries.q", "mllm.ref_connector.")


def strip_prefix(key: str) -> str:
    for prefix in ("pipe.", "dit."):
        key = key.removeprefix(prefix)
    return key


def _module(name: str) -> str | None:
    """A DiffSynth WanModel module path -> its diffusers WanTransformer3DModel path (None: not one)."""
    if name in _TOP:
        return _TOP[name]
    m = _BLOCK.match(name)
    if not m:
        return None
    block, rest = m.groups()
    part, _, proj = rest.partition(".")
    if part in _ATTN and proj in _PROJ:
        return f"blocks.{block}.{_ATTN[part]}.{_PROJ[proj]}"
    return {
        "ffn.0": f"blocks.{block}.ffn.net.0.proj",
        "ffn.2": f"blocks.{block}.ffn.net.2",
        "norm3": f"blocks.{block}.norm2",
    }.get(rest)


def dit_key(key: str) -> str | None:
    """A Kiwi-Edit (DiffSynth) DiT tensor name -> the diffusers one, or None if it is not one."""
    if key == "head.modulation":
        return "scale_shift_table"
    m = _BLOCK.match(key)
    if m and m.group(2) == "modulation":
        return f"blocks.{m.group(1)}.scale_shift_table"
    module, _, leaf = key.rpartition(".")
    target = _module(module)
    return f"{target}.{leaf}" if target and leaf in ("weight", "bias") else None


@dataclass
class KiwiLayout:
    """A Kiwi-Edit checkpoint's keys sorted by where they go (original key names throughout)."""

    dit: dict[str, str] = field(default_factory=dict)  # kiwi key -> diffusers key (full DiT weights)
    dit_lora: dict[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  # diffusers weight -> (A key, B key, kiwi module)
    mllm_lora: dict[str, tuple[str, str]] = field(default_factory=dict)  # Qwen weight -> (A key, B key)
    g2w: dict[str, str] = field(default_factory=dict)  # kiwi key -> g2w checkpoint key
    ignored: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def _lora_pair(key: str, lora: dict, pairs: dict, target: str, module: str) -> None:
    ab = _LORA.match(strip_prefix(key)).group(2)
    pairs.setdefault(target, {})[ab] = key
    lora[target] = module


def classify(keys) -> KiwiLayout:
    """Sort a checkpoint's keys; LoRA keys are paired (a half pair is unknown)."""
    out = KiwiLayout()
    dit_pairs, mllm_pairs, modules = {}, {}, {}
    for key in keys:
        plain = strip_prefix(key)
        lora = _LORA.match(plain)
        if plain.startswith(IGNORED):
            out.ignored.append(key)
        elif lora and plain.startswith(MLLM_LORA_BASE):
            target = "model.language_model." + lora.group(1).removeprefix(MLLM_LORA_BASE) + ".weight"
            _lora_pair(key, modules, mllm_pairs, target, lora.group(1))
        elif lora and _module(lora.group(1)):
            _lora_pair(key, modules, dit_pairs, _module(lora.group(1)) + ".weight", lora.group(1))
        elif dit_key(plain):
            out.dit[key] = dit_key(plain)
        elif plain == "mllm.video_queries.q":
            out.g2w[key] = "condition.queries"
        elif m := _CONNECTOR.match(plain):
            out.g2w[key] = f"condition.connector.{m.group(1)}.{m.group(2)}"
        else:
            embed = next(
                (
                    f"{ours}.{leaf}"
                    for name, ours in _EMBED.items()
                    for inner in (".patch_embedding.", ".")
                    for leaf in ("weight", "bias")
                    if plain == f"{name}{inner}{leaf}"
                ),
                None,
            )
            if embed:
                out.g2w[key] = embed
            else:
                out.unknown.append(key)
    for pairs, into in ((dit_pairs, out.dit_lora), (mllm_pairs, out.mllm_lora)):
        for target, ab in pairs.items():
            if set(ab) != {"lora_A", "lora_B"}:
                out.unknown += list(ab.values())  # half a LoRA pair is not a layout we know
            elif into is out.dit_lora:
                into[target] = (ab["lora_A"], ab["lora_B"], modules[target])
            else:
                into[target] = (ab["lora_A"], ab["lora_B"])
    out.unknown.sort()
    out.ignored.sort()
    return out
