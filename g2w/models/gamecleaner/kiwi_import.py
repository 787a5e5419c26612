"""Start GameCleaner from a Kiwi-Edit stage checkpoint (the paper's starting point).

`import_kiwi(KIWI, config, BASE, OUT, mllm_dir=QWEN)` writes a g2w start into OUT:

- `OUT/base/transformer/`: the Wan DiT in diffusers layout with Kiwi-Edit's weights: its full
  fine-tuned DiT (5B stages 2 and 3), or BASE's DiT with Kiwi-Edit's DiT LoRA merged in (14B
  stage 2); `OUT/base/vae` links to BASE's VAE, which Kiwi-Edit does not train;
- `OUT/mllm/`: the Qwen2.5-VL folder with Kiwi-Edit's MLLM LoRA merged in (only when the
  checkpoint has one; it needs `mllm_dir`);
- `OUT/weights.safetensors`: the g2w checkpoint: PE_src and the reference embedder, the video
  queries and the connector from Kiwi-Edit, gamma = (0, 1) (Kiwi-Edit weights the source residual
  by sigma(t), which that is), and fresh LoRA adapters (B = 0) for GameCleaner's own training;
- `OUT/import.json`: what was converted, merged and ignored.

Then `g2w gamecleaner precache/train --checkpoint OUT/weights.safetensors --base OUT/base
--mllm OUT/mllm` starts from it. The key layout is in `kiwi_layout`. Everything is checked on
the safetensors headers before one tensor is read: unknown keys (another version of the layout),
missing ones, and every config field that differs between the checkpoint, the preset and the
base (another model size) are refused by name. Tensors are then streamed into shards of at most
`SHARD_BYTES`, so memory stays bounded by a shard, not by the model.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from contextlib import ExitStack

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from g2w.models.gamecleaner.kiwi_layout import KiwiLayout, classify, strip_prefix
from g2w.models.gamecleaner.presets import GameCleanerConfig, base_differences

SHARD_BYTES = 2 << 30
DIT_STEM, MLLM_STEM = "diffusion_pytorch_model", "model"
_REQUIRED = {
    "mllm.video_queries.q": "condition.queries",
    "vae_condition": "dit.source_embed",
    "mllm.connetor.0": "condition.connector.0",
    "mllm.connetor.2": "condition.connector.2",
}


class KiwiImportError(ValueError):
    """The checkpoint is not a Kiwi-Edit layout this importer knows, or not for this preset and base."""


def _few(names, limit: int = 8) -> str:
    names = list(names)
    return ", ".join(names[:limit]) + (f", ... ({len(names)} in all)" if len(names) > limit else "")


class SafetensorsFolder:
    """The tensors of a diffusers/transformers weights folder (one file or shards with an index)."""

    def __init__(self, folder: str, stem: str, stack: ExitStack):
        index = os.path.join(folder, f"{stem}.safetensors.index.json")
        if os.path.isfile(index):
            with open(index) as f:
                self.files = {k: os.path.join(folder, v) for k, v in json.load(f)["weight_map"].items()}
        elif os.path.isfile(os.path.join(folder, f"{stem}.safetensors")):
            path = os.path.join(folder, f"{stem}.safetensors")
            with safe_open(path, "pt") as f:
                self.files = dict.fromkeys(f.keys(), path)
        else:
            raise KiwiImportError(f"{folder}: no {stem}.safetensors or {stem}.safetensors.index.json")
        self._stack, self._open = stack, {}

    def _handle(self, name: str):
        path = self.files[name]
        if path not in self._open:
            self._open[path] = self._stack.enter_context(safe_open(path, "pt"))
        return self._open[path]

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._handle(name).get_slice(name).get_shape())

    def get(self, name: str) -> torch.Tensor:
        return self._handle(name).get_tensor(name)


class ShardWriter:
    """Writes tensors into `stem`-NNNNN-of-NNNNN.safetensors shards of at most `limit` bytes plus
    the index both libraries read (one `stem.safetensors` when everything fits in one)."""

    def __init__(self, folder: str, stem: str, limit: int = SHARD_BYTES):
        self.folder, self.stem, self.limit = folder, stem, limit
        self.pending, self.size, self.parts, self.weight_map, self.total = {}, 0, [], {}, 0

    def add(self, name: str, tensor: torch.Tensor) -> None:
        nbytes = tensor.numel() * tensor.element_size()
        if self.pending and self.size + nbytes > self.limit:
            self._flush()
        self.pending[name] = tensor.contiguous()
        self.size += nbytes
        self.total += nbytes

    def _flush(self) -> None:
        part = os.path.join(self.folder, f".{self.stem}.part{len(self.parts)}")
        save_file(self.pending, part, metadata={"format": "pt"})
        self.parts.append((part, list(self.pending)))
        self.pending, self.size = {}, 0

    def close(self) -> None:
        if self.pending or not self.parts:
            self._flush()
        if len(self.parts) == 1:
            os.replace(self.parts[0][0], os.path.join(self.folder, f"{self.stem}.safetensors"))
            return
        for i, (part, names) in enumerate(self.parts, 1):
            name = f"{self.stem}-{i:05d}-of-{len(self.parts):05d}.safetensors"
            os.replace(part, os.path.join(self.folder, name))
            self.weight_map.update(dict.fromkeys(names, name))
        with open(os.path.join(self.folder, f"{self.stem}.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": self.total}, "weight_map": self.weight_map}, f, indent=1)


def _json(path: str) -> dict:
    if not os.path.isfile(path):
        raise KiwiImportError(f"{path} not found")
    with open(path) as f:
        return json.load(f)


def expected_dit(dit_config: dict) -> dict[str, tuple[int, ...]]:
    """diffusers tensor name -> shape of the Wan DiT this config builds (on the meta device: no memory)."""
    from diffusers import WanTransformer3DModel

    with torch.device("meta"):
        model = WanTransformer3DModel.from_config(dit_config)
    return {k: tuple(v.shape) for k, v in model.state_dict().items()}


def _g2w_source(layout: KiwiLayout, prefix: str) -> str | None:
    return next((k for k, v in layout.g2w.items() if v.startswith(prefix)), None)


def layout_differences(
    layout: KiwiLayout,
    shapes: dict,
    dit: dict,
    expected: dict,
    config: GameCleanerConfig,
    mllm_width: int,
    mllm: SafetensorsFolder | None,
) -> list[str]:
    """Everything that keeps this checkpoint from being this preset's start, by key or config field."""
    out = [
        f"missing {kiwi} (a Kiwi-Edit video stage checkpoint has it)"
        for kiwi, ours in _REQUIRED.items()
        if not _g2w_source(layout, ours)
    ]
    width, channels, patch = (
        dit["num_attention_heads"] * dit["attention_head_dim"],
        dit["in_channels"],
        dit["patch_size"],
    )
    want = {
        "condition.queries": (config.num_queries, mllm_width),
        "condition.connector.0.weight": (width, mllm_width),
        "condition.connector.2.weight": (width, width),
        "dit.source_embed.weight": (width, channels, *patch),
        "dit.reference_embed.weight": (width, channels, *patch),
    }
    fields = {
        "condition.queries": "num_queries x MLLM hidden_size",
        "condition.connector.0.weight": "DiT width x MLLM hidden_size",
        "dit.source_embed.weight": "DiT width, in_channels, patch_size",
    }
    for kiwi, ours in layout.g2w.items():
        if ours in want and shapes[kiwi] != want[ours]:
            out.append(
                f"{kiwi} {shapes[kiwi]} where this preset/base/MLLM needs {want[ours]} "
                f"({fields.get(ours, 'DiT width')})"
            )
    if layout.dit:
        out += _dit_differences(layout, shapes, dit, expected)
    for target, (a, b, module) in layout.dit_lora.items():
        if target not in expected:
            out.append(f"DiT LoRA on {module}: the base has no {target}")
        elif (shapes[b][0], shapes[a][1]) != expected[target]:
            out.append(f"DiT LoRA on {module} is {(shapes[b][0], shapes[a][1])}, the base's weight {expected[target]}")
    if layout.mllm_lora and mllm is None:
        out.append(f"{len(layout.mllm_lora)} MLLM LoRA pairs to merge: give the Qwen2.5-VL folder (--mllm)")
    for target, (a, b) in layout.mllm_lora.items() if mllm else ():
        name = _mllm_target(target, mllm)
        if name is None:
            out.append(f"MLLM LoRA {strip_prefix(a)}: the MLLM folder has no {target}")
        elif (shapes[b][0], shapes[a][1]) != mllm.shape(name):
            out.append(f"MLLM LoRA {strip_prefix(a)} is {(shapes[b][0], shapes[a][1])}, the MLLM's {mllm.shape(name)}")
    return out


def _dit_differences(layout: KiwiLayout, shapes: dict, dit: dict, expected: dict) -> list[str]:
    """A full DiT against the base's config: the config fields it implies, then the keys."""
    got = {v: shapes[k] for k, v in layout.dit.items()}
    implied = {}
    if "blocks.0.attn1.to_q.weight" in got:
        implied["num_attention_heads x attention_head_dim"] = (
            got["blocks.0.attn1.to_q.weight"][0],
            dit["num_attention_heads"] * dit["attention_head_dim"],
        )
    if "blocks.0.ffn.net.0.proj.weight" in got:
        implied["ffn_dim"] = (got["blocks.0.ffn.net.0.proj.weight"][0], dit["ffn_dim"])
    if "patch_embedding.weight" in got:
        implied["in_channels"] = (got["patch_embedding.weight"][1], dit["in_channels"])
    blocks = {int(k.split(".")[1]) for k in got if k.startswith("blocks.")}
    implied["num_layers"] = (max(blocks) + 1 if blocks else 0, dit["num_layers"])
    out = [
        f"DiT {name}: checkpoint {ours}, base {theirs}" for name, (ours, theirs) in implied.items() if ours != theirs
    ]
    missing = sorted(set(expected) - set(got))
    unexpected = sorted(set(got) - set(expected))
    shaped = [f"{k} {got[k]} vs {expected[k]}" for k in sorted(set(got) & set(expected)) if got[k] != expected[k]]
    if missing:
        out.append(f"DiT keys the checkpoint lacks: {_few(missing)}")
    if unexpected:
        out.append(f"DiT keys the base has no place for: {_few(unexpected)}")
    if shaped:
        out.append(f"DiT tensors of another shape: {_few(shaped)}")
    return out


def _mllm_target(target: str, mllm: SafetensorsFolder) -> str | None:
    """The Qwen weight a LoRA merges into, in the folder's naming (released Qwen2.5-VL files use the
    older `model.layers...` names for the language model)."""
    legacy = "model." + target.removeprefix("model.language_model.")
    return next((n for n in (target, legacy) if n in mllm.files), None)


def import_kiwi(
    kiwi_path: str, config: GameCleanerConfig, base_dir: str, output: str, mllm_dir: str | None = None, seed: int = 0
) -> dict:
    """Convert the Kiwi-Edit checkpoint at `kiwi_path` into a g2w start in the folder `output`
    (see the module docstring); returns the summary it also writes to `output/import.json`."""
    with safe_open(kiwi_path, "pt") as f:
        shapes = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}  # headers only
    layout = classify(shapes)
    if layout.unknown:
        raise KiwiImportError(
            f"{kiwi_path}: {len(layout.unknown)} keys of no Kiwi-Edit layout this importer knows "
            f"(another version?): {_few(layout.unknown)}"
        )
    dit = _json(os.path.join(base_dir, "transformer", "config.json"))
    if differ := base_differences(config, dit):
        raise KiwiImportError(f"{base_dir} is not the base of preset {config.name}: {'; '.join(differ)}")
    expected = expected_dit(dit)
    with ExitStack() as stack:
        mllm = SafetensorsFolder(mllm_dir, MLLM_STEM, stack) if mllm_dir else None
        mllm_width = (
            _json(os.path.join(mllm_dir, "config.json")).get("text_config", {}).get("hidden_size") if mllm_dir else None
        ) or _preset_mllm_width(config)
        if differ := layout_differences(layout, shapes, dit, expected, config, mllm_width, mllm):
            raise KiwiImportError(f"{kiwi_path} does not fit preset {config.name} on {base_dir}: {'; '.join(differ)}")
        os.makedirs(os.path.join(output, "base", "transformer"), exist_ok=True)
        kiwi = stack.enter_context(safe_open(kiwi_path, "pt"))
        _write_dit(kiwi, layout, base_dir, expected, os.path.join(output, "base", "transformer"), stack)
        vae = os.path.join(output, "base", "vae")
        if not os.path.lexists(vae):
            os.symlink(os.path.abspath(os.path.join(base_dir, "vae")), vae)
        if layout.mllm_lora:
            _write_mllm(kiwi, layout, mllm, mllm_dir, os.path.join(output, "mllm"))
        _write_g2w(kiwi, layout, config, os.path.join(output, "weights.safetensors"), kiwi_path, seed)
    summary = {
        "kiwi": os.path.basename(kiwi_path),
        "preset": config.name,
        "dit": "full Kiwi-Edit DiT" if layout.dit else "base DiT + Kiwi-Edit DiT LoRA merged",
        "dit_lora_merged": len(layout.dit_lora),
        "mllm_lora_merged": len(layout.mllm_lora),
        "mllm": "mllm" if layout.mllm_lora else None,
        "weights": "weights.safetensors",
        "base": "base",
        "ignored": layout.ignored,
    }
    with open(os.path.join(output, "import.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return summary


def _preset_mllm_width(config: GameCleanerConfig) -> int:
    from g2w.models.gamecleaner.model import mllm_width

    return mllm_width(config)


def _merged(weight: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """W + B @ A (alpha = rank), computed in float32, stored in W's dtype."""
    return (weight.float() + b.float() @ a.float()).to(weight.dtype)


def _write_dit(kiwi, layout: KiwiLayout, base_dir: str, expected: dict, folder: str, stack: ExitStack) -> None:
    source = {v: k for k, v in layout.dit.items()}
    base = None if layout.dit else SafetensorsFolder(os.path.join(base_dir, "transformer"), DIT_STEM, stack)
    writer = ShardWriter(folder, DIT_STEM)
    for name in expected:
        tensor = kiwi.get_tensor(source[name]) if base is None else base.get(name)
        if name in layout.dit_lora:
            a, b, _ = layout.dit_lora[name]
            tensor = _merged(tensor, kiwi.get_tensor(a), kiwi.get_tensor(b))
        writer.add(name, tensor)
    writer.close()
    shutil.copyfile(os.path.join(base_dir, "transformer", "config.json"), os.path.join(folder, "config.json"))


def _write_mllm(kiwi, layout: KiwiLayout, mllm: SafetensorsFolder, mllm_dir: str, folder: str) -> None:
    """A copy of the Qwen folder, each weight file rewritten with its LoRA merged (one file in memory at a time)."""
    os.makedirs(folder, exist_ok=True)
    weight_files = set(mllm.files.values())
    for name in os.listdir(mllm_dir):
        path = os.path.join(mllm_dir, name)
        if os.path.isfile(path) and path not in weight_files:
            shutil.copyfile(path, os.path.join(folder, name))
    lora = {_mllm_target(t, mllm): ab for t, ab in layout.mllm_lora.items()}
    for path in sorted(weight_files):
        with safe_open(path, "pt") as f:
            tensors = {k: f.get_tensor(k) for k in f.keys()}
            metadata = f.metadata() or {"format": "pt"}
        for name, (a, b) in lora.items():
            if name in tensors:
                tensors[name] = _merged(tensors[name], kiwi.get_tensor(a), kiwi.get_tensor(b))
        save_file(tensors, os.path.join(folder, os.path.basename(path)), metadata=metadata)


def _write_g2w(kiwi, layout: KiwiLayout, config: GameCleanerConfig, path: str, kiwi_path: str, seed: int) -> None:
    """Kiwi-Edit's embedders, queries and connector, gamma (0, 1), and fresh LoRA adapters (as peft
    initialises them: A Kaiming-uniform, B zero, so the start is exactly Kiwi-Edit's model)."""
    from g2w.models.gamecleaner.model import GameCleaner, build_transformer

    with torch.device("meta"):
        model = GameCleaner(config, build_transformer(config, None), train_connector=False)
    wanted = {n: tuple(p.shape) for n, p in model.checkpoint_state().items()}
    state = {ours: kiwi.get_tensor(k).float() for k, ours in layout.g2w.items()}
    if "dit.reference_embed.weight" not in state:  # a stage-2 checkpoint never saw a reference: zero-initialised
        state["dit.reference_embed.weight"] = torch.zeros(wanted["dit.reference_embed.weight"])
        state["dit.reference_embed.bias"] = torch.zeros(wanted["dit.reference_embed.bias"])
    state["dit.gamma"] = torch.tensor([0.0, 1.0])
    g = torch.Generator().manual_seed(seed)
    for name, shape in wanted.items():
        if ".lora_A." in name:
            bound = 1 / math.sqrt(shape[1])  # kaiming_uniform_(a=sqrt(5)) on an [r, in] weight
            state[name] = (torch.rand(shape, generator=g) * 2 - 1) * bound
        elif ".lora_B." in name:
            state[name] = torch.zeros(shape)
    missing, extra = sorted(set(wanted) - set(state)), sorted(set(state) - set(wanted))
    shaped = [
        f"{k} {tuple(state[k].shape)} vs {wanted[k]}"
        for k in set(state) & set(wanted)
        if tuple(state[k].shape) != wanted[k]
    ]
    if missing or extra or shaped:
        raise KiwiImportError(
            f"{kiwi_path}: does not make this preset's g2w checkpoint: missing {_few(missing)}, "
            f"extra {_few(extra)}, wrong shape {_few(sorted(shaped))}"
        )
    save_file(
        {k: v.contiguous() for k, v in state.items()},
        path,
        metadata={
            "preset": config.name,
            "config": json.dumps(config.to_dict()),
            "imported_from": os.path.basename(kiwi_path),
        },
    )
