"""GameCleaner's trainable core and how it is built, saved and loaded.

`GameCleaner` holds what training touches: the Wan DiT with LoRA and the residual/reference
embedders (`GameCleanerDiT`) and the queries + connector. The MLLM and the VAE are frozen
encoders (`encoders.py`) used by the latent precache and the sampler, never by a training step.

What trains: LoRA on the DiT attention (q, k, v, o; optionally the FFN), PE_src, gamma and the
reference embedder; the connector too when the run starts from scratch (its zero-initialised
output layer would otherwise keep the context at zero forever). Queries and the MLLM stay frozen.

Dtypes follow diffusers: in bf16 the base DiT's weights are bf16 except the modules its class keeps
in fp32 (`_keep_in_fp32_modules`: norms, time embedder, modulation tables), and the RoPE tables
(buffers, computed in float64) keep the fp32 diffusers stores them in, never bf16; a loaded base gets this from `from_pretrained(torch_dtype=...)`, a
random-initialised one by the same rule applied here. What trains (LoRA, embedders, gamma,
connector) stays fp32, as PEFT upcasts adapters, so the optimizer updates fp32 weights; the
forward runs under autocast.

A g2w checkpoint is one safetensors file with the LoRA adapters, PE_src, gamma, the reference
embedder, the connector and the queries, and the preset in its metadata.
"""

from __future__ import annotations

import json
import os

import torch
from safetensors import safe_open
from safetensors.torch import save_file
from torch import nn

from g2w.models.gamecleaner.condition import QueryConnector
from g2w.models.gamecleaner.dit import GameCleanerDiT
from g2w.models.gamecleaner.presets import GameCleanerConfig, base_differences
from g2w.train_task import full, load_named

QWEN25_VL_3B_WIDTH = 2048


def mllm_width(config: GameCleanerConfig) -> int:
    return config.mllm["text_config"]["hidden_size"] if config.mllm else QWEN25_VL_3B_WIDTH


def base_dtype(device: torch.device | str, precision: str = "bf16") -> torch.dtype:
    """The frozen base's weight dtype: bf16 where the step runs under bf16 autocast (CUDA), else fp32."""
    return torch.bfloat16 if torch.device(device).type == "cuda" and precision == "bf16" else torch.float32


def cast_keeping_fp32(module: nn.Module, dtype: torch.dtype, keep: list[str] | None) -> nn.Module:
    """Parameters to `dtype` except those under a module named in `keep`, matched by name component
    as diffusers' loader matches `_keep_in_fp32_modules`; buffers (the RoPE tables) untouched."""
    for name, param in module.named_parameters():
        if not any(k in name.split(".") for k in keep or ()):
            param.data = param.data.to(dtype)
    return module


def build_transformer(
    config: GameCleanerConfig, base_dir: str | None, seed: int = 0, dtype: torch.dtype = torch.float32
) -> nn.Module:
    """Wan DiT from `base_dir/transformer` (diffusers layout), or random-initialised from the preset,
    with its weights in `dtype` save the class's fp32-kept modules."""
    from diffusers import WanTransformer3DModel

    if base_dir is None:
        torch.manual_seed(seed)
        model = WanTransformer3DModel(**config.dit)
        return cast_keeping_fp32(model, dtype, WanTransformer3DModel._keep_in_fp32_modules)
    folder = os.path.join(base_dir, "transformer")
    if not os.path.isfile(os.path.join(folder, "config.json")):
        raise FileNotFoundError(f"{folder}/config.json not found: expected a diffusers Wan folder (BASE/transformer)")
    with open(os.path.join(folder, "config.json")) as f:
        differ = base_differences(config, json.load(f))
    if differ:  # a base of another model size would fail later, mid-load, with a wall of shape errors
        raise ValueError(f"{base_dir} is not the base of preset {config.name}: {'; '.join(differ)}")
    return WanTransformer3DModel.from_pretrained(folder, torch_dtype=dtype)


class GameCleaner(nn.Module):
    def __init__(self, config: GameCleanerConfig, transformer: nn.Module, train_connector: bool, seed: int = 0):
        super().__init__()
        from peft import LoraConfig
        from peft.tuners.tuners_utils import cast_adapter_dtype

        self.config = config
        transformer.requires_grad_(False)
        transformer.add_adapter(
            LoraConfig(
                r=config.lora_rank,
                lora_alpha=config.lora_alpha,
                target_modules=config.lora_targets(),
                init_lora_weights=True,
            )
        )
        cast_adapter_dtype(transformer, "default")  # PEFT creates adapters in the base's dtype; they train in fp32
        self.dit = GameCleanerDiT(config, transformer)
        self.condition = QueryConnector(config.num_queries, mllm_width(config), config.dit_width, seed)
        self.condition.queries.requires_grad_(False)
        self.condition.connector.requires_grad_(train_connector)
        self.train_connector = train_connector

    def forward(self, latents, t, source, reference=None, context=None, states=None) -> torch.Tensor:
        """Wan's prediction; the context is given (frozen connector, precached) or made from MLLM states."""
        if context is None:
            context = self.condition(states)
        return self.dit(latents, t, context, source, reference)

    def context(self, states: torch.Tensor) -> torch.Tensor:
        return self.condition(states)

    def checkpoint_state(self) -> dict[str, nn.Parameter]:
        """Name -> parameter of everything a g2w checkpoint holds."""
        keep = ("lora_", "dit.source_embed.", "dit.reference_embed.", "dit.gamma", "condition.")
        return {n: p for n, p in self.named_parameters() if any(k in n for k in keep)}

    def trainable(self) -> dict[str, nn.Parameter]:
        return {n: p for n, p in self.named_parameters() if p.requires_grad}

    def save(self, path: str) -> None:
        """Under FSDP every worker calls this (`full` gathers the shards); rank 0's file is kept."""
        state = {n: full(p).detach().float().cpu().contiguous() for n, p in self.checkpoint_state().items()}
        save_file(state, path, metadata={"preset": self.config.name, "config": json.dumps(self.config.to_dict())})

    def load(self, path: str) -> None:
        with safe_open(path, "pt") as f:
            state = {k: f.get_tensor(k) for k in f.keys()}
        load_named(self.checkpoint_state(), state, path)


def checkpoint_config(path: str) -> GameCleanerConfig:
    """The configuration a checkpoint was trained with (its safetensors metadata)."""
    with safe_open(path, "pt") as f:
        meta = f.metadata() or {}
    if "config" not in meta:
        raise ValueError(f"{path}: not a g2w GameCleaner checkpoint (no config in its metadata)")
    values = json.loads(meta["config"])
    return GameCleanerConfig(**{**values, "gamma_init": tuple(values["gamma_init"])})


def load_gamecleaner(
    checkpoint: str | None,
    config: GameCleanerConfig | None = None,
    base_dir: str | None = None,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
) -> GameCleaner:
    """A GameCleaner from base weights (or random init) plus an optional g2w checkpoint.

    Starting from a checkpoint freezes the connector (as in the paper); from scratch it trains.
    `dtype` is the base DiT's (see `base_dtype`).
    """
    if config is None:
        if checkpoint is None:
            raise ValueError("give a preset or a checkpoint")
        config = checkpoint_config(checkpoint)
    model = GameCleaner(
        config, build_transformer(config, base_dir, seed, dtype), train_connector=checkpoint is None, seed=seed
    )
    if checkpoint is not None:
        model.load(checkpoint)
    return model


def load_condition(checkpoint: str | None, config: GameCleanerConfig, seed: int = 0) -> QueryConnector:
    """Only the queries and connector: from a checkpoint, or a fresh run's (same seed as its model)."""
    condition = QueryConnector(config.num_queries, mllm_width(config), config.dit_width, seed)
    if checkpoint is not None:
        with safe_open(checkpoint, "pt") as f:
            state = {k.removeprefix("condition."): f.get_tensor(k) for k in f.keys() if k.startswith("condition.")}
        load_named(dict(condition.named_parameters()), state, checkpoint)
    return condition.requires_grad_(False)
