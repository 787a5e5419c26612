"""The MLLM condition (paper Eq. 1): Qwen2.5-VL reads sampled source frames and the instruction;
N learnable queries at the end of the prompt collect what matters, and a connector maps their
last-layer states to the DiT width, replacing the text encoder as the cross-attention context.

Video tokens get Qwen2.5-VL's 3-D rotary positions (M-RoPE: time, height, width). transformers
only computes those when it is handed the token types, and silently falls back to 1-D positions
otherwise, so `positions()` computes them explicitly with the model's own `get_rope_index` and
passes them in.

The prompt is Kiwi-Edit's for instruction-only video editing, laid out as Qwen2.5-VL's chat template
renders it (no generation prompt): its system prompt, then the user turn with the video, the
instruction and the N query tokens, closed by `<|im_end|>` and a newline. The condition is read,
as Kiwi-Edit reads it, from the last N positions of that sequence, which under the template are
the last N - 2 query tokens and the turn's two closing tokens: a Kiwi-Edit connector imported into
g2w then sees the features it was trained on.

The tiny preset's MLLM is random-initialised from its config and has no tokenizer files, so its
text is tokenized as UTF-8 bytes (ids 0-255) and the chat template's two markers as one id each
(`TINY_CHAT_IDS`), so its sequence has the real layout's shape; real presets use the tokenizer in
the MLLM folder.
"""

from __future__ import annotations

import copy
import math
import os
import re

import numpy as np
import torch
from torch import nn

from g2w.models.gamecleaner.presets import INSTRUCTION, GameCleanerConfig

CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)
QUERY_TOKEN = "<|object_ref_start|>"  # Kiwi-Edit's placeholder; its embeddings are replaced by the queries
# Kiwi-Edit's system prompt, verbatim (the MLLM was tuned with it)
SYSTEM_PROMPT = (
    "You will be given an image and instruction. Please describe the content of the image in detail "
    "based on instruction in your own words."
)
# Qwen2.5-VL's chat template around the user turn's video, for a system + user conversation
CHAT_BEFORE_VIDEO = f"<|im_start|>system\n{SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n"
CHAT_END = "<|im_end|>\n"
TINY_CHAT_IDS = {"<|im_start|>": 505, "<|im_end|>": 506}  # free ids of the tiny MLLM's vocabulary


class QueryConnector(nn.Module):
    """The learnable queries and the connector (Linear-GELU-Linear, last layer zero-initialised).
    The GELU is the tanh approximation, as in Kiwi-Edit's connector, so its imported weights compute
    what they were trained to."""

    def __init__(self, num_queries: int, mllm_width: int, dit_width: int, seed: int = 0):
        super().__init__()
        # seeded on their own, so the precache can rebuild a fresh run's queries without the DiT
        g = torch.Generator().manual_seed(seed)
        self.queries = nn.Parameter(torch.randn(num_queries, mllm_width, generator=g) * mllm_width**-0.5)
        self.connector = nn.Sequential(
            nn.Linear(mllm_width, dit_width), nn.GELU(approximate="tanh"), nn.Linear(dit_width, dit_width)
        )
        nn.init.zeros_(self.connector[2].weight)
        nn.init.zeros_(self.connector[2].bias)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        """MLLM states at the query positions [B, N, mllm_width] -> DiT context [B, N, dit_width]."""
        return self.connector(states)


def smart_size(height: int, width: int, max_pixels: int, factor: int = 28) -> tuple[int, int]:
    """Sides divisible by `factor` at the frame's aspect and at most `max_pixels`, by Qwen2.5-VL's
    resize rule (which Kiwi-Edit's video reader applies): each side rounded to the factor, and where
    that exceeds the budget, both scaled to it and floored to the factor."""
    h, w = max(factor, round(height / factor) * factor), max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    return h, w


class MLLMEncoder(nn.Module):
    """Qwen2.5-VL as a frozen feature extractor: frames + instruction + queries -> query states."""

    def __init__(self, config: GameCleanerConfig, mllm_dir: str | None = None):
        super().__init__()
        from transformers import AutoTokenizer, Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2_5_VLModel

        self.config = config
        if mllm_dir is None:
            if config.mllm is None:
                raise ValueError(f"preset {config.name} needs a local Qwen2.5-VL folder (--mllm DIR)")
            self.model = Qwen2_5_VLModel(Qwen2_5_VLConfig(**copy.deepcopy(config.mllm)))
            self.tokenizer = None
        else:
            if not os.path.isfile(os.path.join(mllm_dir, "config.json")):
                raise FileNotFoundError(f"{mllm_dir}: no config.json; expected a transformers Qwen2.5-VL folder")
            self.model = Qwen2_5_VLForConditionalGeneration.from_pretrained(mllm_dir, dtype=torch.bfloat16).model
            self.tokenizer = AutoTokenizer.from_pretrained(mllm_dir)
        self.model.requires_grad_(False).eval()
        self.mllm_config = self.model.config

    @property
    def width(self) -> int:
        return self.mllm_config.text_config.hidden_size

    def _text_ids(self, text: str) -> list[int]:
        if self.tokenizer is None:
            parts = re.split("(" + "|".join(map(re.escape, TINY_CHAT_IDS)) + ")", text)
            return [i for part in parts for i in ([TINY_CHAT_IDS[part]] if part in TINY_CHAT_IDS else part.encode())]
        return self.tokenizer(text, add_special_tokens=False).input_ids

    def video_patches(self, frames: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """uint8 frames [T, H, W, 3] -> (flattened patches, grid [1, 3]) in Qwen2-VL's processor layout."""
        vision = self.mllm_config.vision_config
        p, m, tp = vision.patch_size, vision.spatial_merge_size, vision.temporal_patch_size
        x = torch.from_numpy(np.ascontiguousarray(frames)).permute(0, 3, 1, 2).float() / 255.0
        h, w = smart_size(x.shape[2], x.shape[3], self.config.mllm_frame_pixels, p * m)
        x = nn.functional.interpolate(x, size=(h, w), mode="bicubic", align_corners=False).clamp(0, 1)
        x = (x - torch.tensor(CLIP_MEAN)[:, None, None]) / torch.tensor(CLIP_STD)[:, None, None]
        if x.shape[0] % tp:
            x = torch.cat([x, x[-1:].expand(tp - x.shape[0] % tp, -1, -1, -1)])
        gt, gh, gw = x.shape[0] // tp, h // p, w // p
        x = x.reshape(gt, tp, 3, gh // m, m, p, gw // m, m, p).permute(0, 3, 6, 4, 7, 2, 1, 5, 8)
        return x.reshape(gt * gh * gw, 3 * tp * p * p), torch.tensor([[gt, gh, gw]])

    def prompt(self, grid: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Token ids [L], token types [L] (2 = video), the query tokens' positions [N] and the
        positions the condition is read from [N] (the sequence's last N) of one sample."""
        cfg = self.mllm_config
        merge = cfg.vision_config.spatial_merge_size
        n_video = int(grid.prod()) // merge**2
        query_id = self.tokenizer.convert_tokens_to_ids(QUERY_TOKEN) if self.tokenizer else cfg.vision_end_token_id + 1
        n = self.config.num_queries
        ids = (
            self._text_ids(CHAT_BEFORE_VIDEO)
            + [cfg.vision_start_token_id]
            + [cfg.video_token_id] * n_video
            + [cfg.vision_end_token_id]
            + self._text_ids(INSTRUCTION)
            + [query_id] * n
        )
        slots = torch.arange(len(ids) - n, len(ids))
        ids = torch.tensor(ids + self._text_ids(CHAT_END))
        types = (ids == cfg.video_token_id).int() * 2
        return ids, types, slots, torch.arange(len(ids) - n, len(ids))

    def positions(
        self, ids: torch.Tensor, types: torch.Tensor, grid: torch.Tensor, seconds_per_grid: float
    ) -> torch.Tensor:
        """M-RoPE position ids [3, B, L] for a batch of identical layouts."""
        pos, _ = self.model.get_rope_index(
            ids, types, video_grid_thw=grid, second_per_grid_ts=torch.full((grid.shape[0],), seconds_per_grid)
        )
        return pos

    @torch.no_grad()
    def encode(self, frames: list[np.ndarray], fps: float, queries: torch.Tensor) -> torch.Tensor:
        """Clips (uint8 [T, H, W, 3] each, sampled at `fps`) and the queries [N, width] ->
        last-layer hidden states at the readout positions [B, N, width]."""
        device = next(self.model.parameters()).device
        dtype = next(self.model.parameters()).dtype
        patches = [self.video_patches(f) for f in frames]
        pixels = torch.cat([p for p, _ in patches]).to(device, dtype)
        grid = torch.cat([g for _, g in patches]).to(device)
        ids, types, slots, readout = self.prompt(grid[0])
        batch = len(frames)
        ids, types = ids.to(device).expand(batch, -1), types.to(device).expand(batch, -1)
        tp = self.mllm_config.vision_config.temporal_patch_size
        pos = self.positions(ids, types, grid, tp / fps)
        embeds = self.model.get_input_embeddings()(ids).clone()
        video = torch.cat(self.model.get_video_features(pixels, grid, return_dict=True).pooler_output)
        embeds[types == 2] = video.to(embeds.dtype)
        embeds[:, slots.to(device)] = queries.to(device, embeds.dtype)
        out = self.model.language_model(inputs_embeds=embeds, position_ids=pos)
        return out.last_hidden_state[:, readout.to(device)].float()
