"""FLOPs of one GameCleaner DiT pass, for the MFU estimate in training logs and benchmarks.

Counts every matrix multiply the model does: the patch embedding and the source/reference
embedders, per block the self-attention q/k/v/o, the cross-attention q/o over the video tokens
and k/v over the context, the two FFN layers, the attention score and value products, the output
projection, the time embedding, the LoRA adapters and (when it trains) the connector. Norms,
modulation and rotary embedding are elementwise and left out.

The backward is counted as autograd runs it with a frozen base, not as 2x the forward: a frozen
linear computes only the gradient of its input (1x its forward), and none at all where its input
needs no gradient (the patch embedding of the noisy latents, the time embedding, the cross-attention
k/v of a precached context); a LoRA adapter computes its weight gradients as well; attention's
backward is 2x its forward (dQ, dK, dV and the score gradient). So LoRA training costs close to 2x
the forward, not the 3x of full fine-tuning.

MFU counts the model's work once: recompute by gradient checkpointing or by a fused attention
kernel's backward is not in the count, by definition.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from g2w.models.gamecleaner.presets import GameCleanerConfig


@dataclass
class _Count:
    forward: float = 0.0
    backward: float = 0.0

    def linear(
        self, tokens: int, d_in: int, d_out: int, *, input_grad: bool, weight_grad: bool = False, lora_rank: int = 0
    ) -> None:
        """A linear layer (or a patch convolution) over `tokens` rows, with an optional LoRA adapter."""
        macs = tokens * d_in * d_out
        self.forward += macs
        self.backward += macs * (int(input_grad) + int(weight_grad))
        if lora_rank:
            down, up = tokens * d_in * lora_rank, tokens * lora_rank * d_out
            self.forward += down + up
            # both adapter weights, the gradient into the down projection's output, and into x if it needs one
            self.backward += down + up + up + (down if input_grad else 0)

    def attention(self, queries: int, keys: int, width: int) -> None:
        macs = 2 * queries * keys * width  # scores, then weighted values
        self.forward += macs
        self.backward += 2 * macs


def video_tokens(config: GameCleanerConfig, reference: bool = True) -> int:
    _, f, h, w = config.latent_shape()
    p = config.dit["patch_size"]
    return (f // p[0] + (1 if reference else 0)) * (h // p[1]) * (w // p[2])


def count(config: GameCleanerConfig, reference: bool = True, train_connector: bool = False) -> _Count:
    """Multiply-accumulates of one sample's forward and (frozen-base LoRA) backward."""
    dit = config.dit
    p = math.prod(dit["patch_size"])
    n_ref = video_tokens(config, True) - video_tokens(config, False) if reference else 0
    n = video_tokens(config, reference)
    n_video = n - n_ref
    m, d, ffn, r = config.num_queries, config.dit_width, dit["ffn_dim"], config.lora_rank
    patch_in, patch_out = dit["in_channels"] * p, dit["out_channels"] * p
    c = _Count()
    c.linear(n_video, patch_in, d, input_grad=False)  # PE(z_t): frozen, the latents need no gradient
    c.linear(n_video, patch_in, d, input_grad=False, weight_grad=True)  # PE_src
    if n_ref:
        c.linear(n_ref, patch_in, d, input_grad=False, weight_grad=True)  # reference embedder
    c.linear(1, dit["freq_dim"], d, input_grad=False)  # time embedding (per sample, frozen, no gradient)
    c.linear(1, d, d, input_grad=False)
    c.linear(1, d, 6 * d, input_grad=False)
    if train_connector:  # Linear-GELU-Linear over the query states, which need no gradient
        from g2w.models.gamecleaner.model import mllm_width

        c.linear(m, mllm_width(config), d, input_grad=False, weight_grad=True)
        c.linear(m, d, d, input_grad=True, weight_grad=True)
    ffn_rank = r if config.lora_ffn else 0
    block = _Count()
    for _ in range(4):  # self-attention q, k, v, o
        block.linear(n, d, d, input_grad=True, lora_rank=r)
    block.attention(n, n, d)
    for _ in range(2):  # cross-attention q, o over the video tokens
        block.linear(n, d, d, input_grad=True, lora_rank=r)
    for _ in range(2):  # cross-attention k, v over the context
        block.linear(m, d, d, input_grad=train_connector, lora_rank=r)
    block.attention(n, m, d)
    block.linear(n, d, ffn, input_grad=True, lora_rank=ffn_rank)
    block.linear(n, ffn, d, input_grad=True, lora_rank=ffn_rank)
    c.forward += dit["num_layers"] * block.forward
    c.backward += dit["num_layers"] * block.backward
    c.linear(n_video, d, patch_out, input_grad=True)  # output projection
    return c


def forward_flops(config: GameCleanerConfig, reference: bool = True) -> float:
    return 2.0 * count(config, reference).forward  # 2 FLOPs per multiply-add


def training_flops(config: GameCleanerConfig, reference: bool = True, train_connector: bool = False) -> float:
    c = count(config, reference, train_connector)
    return 2.0 * (c.forward + c.backward)
