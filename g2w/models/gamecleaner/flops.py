"""FLOPs of one GameCleaner DiT pass, for the MFU estimate in training logs and benchmarks.

Counts the matrix multiplies of every block (self-attention q/k/v/o, cross-attention q/o over the
video tokens and k/v over the context, the two FFN layers) and the attention score and value
products; norms, modulation, rotary embedding and LoRA (rank 64 << width) are ignored. Training
is forward + backward = 3x the forward.
"""

from __future__ import annotations

from g2w.models.gamecleaner.presets import GameCleanerConfig


def video_tokens(config: GameCleanerConfig, reference: bool = True) -> int:
    _, f, h, w = config.latent_shape()
    p = config.dit["patch_size"]
    return (f // p[0] + (1 if reference else 0)) * (h // p[1]) * (w // p[2])


def forward_flops(config: GameCleanerConfig, reference: bool = True) -> float:
    n, m = video_tokens(config, reference), config.num_queries
    d, ffn, layers = config.dit_width, config.dit["ffn_dim"], config.dit["num_layers"]
    linear = n * (4 * d * d + 2 * d * d + 2 * d * ffn) + m * 2 * d * d  # self qkvo, cross q/o, ffn; cross k/v
    attention = 2 * n * n * d + 2 * n * m * d  # self and cross: scores + weighted values
    return 2.0 * layers * (linear + attention)  # 2 FLOPs per multiply-add


def training_flops(config: GameCleanerConfig, reference: bool = True) -> float:
    return 3.0 * forward_flops(config, reference)
