"""GameCleaner configurations: one dataclass, one named preset per base model.

Real presets describe the public checkpoints' architectures (diffusers `WanTransformer3DModel`
and `AutoencoderKLWan` configs, Qwen2.5-VL-3B as the MLLM, as in Kiwi-Edit) so that random
initialisation, FLOP counts and loading from local folders all agree. `tiny` keeps every
component (Qwen2.5-VL, Wan DiT, Wan VAE) but shrinks widths, depths and the clip so CPU tests
train in seconds; it is the only preset whose MLLM has no tokenizer files (see `condition.py`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

INSTRUCTION = "Remove the gameplay UI from the video."
ATTENTION_TARGETS = ("to_q", "to_k", "to_v", "to_out.0")
FFN_TARGETS = ("ffn.net.0.proj", "ffn.net.2")


@dataclass(frozen=True)
class GameCleanerConfig:
    name: str
    width: int
    height: int
    frames: int = 81
    fps: float = 16.0
    mllm_frames: int = 16  # source frames the MLLM sees (Kiwi-Edit's max_frames)
    mllm_frame_pixels: int = 512 * 512  # per frame (Kiwi-Edit's max_pixels), before 14-px patches and 2x2 merge
    num_queries: int = 512  # learnable video queries (Kiwi-Edit's default for video)
    lora_rank: int = 64
    lora_alpha: int = 64
    lora_ffn: bool = False
    reference_drop: float = 0.2
    gamma_init: tuple[float, float] = (0.0, 1.0)  # gamma(t) = a + b * sigma(t), see dit.py
    dit: dict = field(default_factory=dict)  # WanTransformer3DModel config
    vae: dict = field(default_factory=dict)  # AutoencoderKLWan config
    mllm: dict | None = None  # Qwen2.5-VL config for random init (tiny); None: from the local folder

    @property
    def dit_width(self) -> int:
        return self.dit["num_attention_heads"] * self.dit["attention_head_dim"]

    @property
    def latent_channels(self) -> int:
        return self.dit["in_channels"]

    @property
    def vae_stride(self) -> tuple[int, int]:
        """(temporal, spatial) compression of the VAE."""
        return self.vae.get("scale_factor_temporal", 4), self.vae.get("scale_factor_spatial", 8)

    def latent_shape(self, frames: int | None = None) -> tuple[int, int, int, int]:
        t, s = self.vae_stride
        frames = self.frames if frames is None else frames
        return self.latent_channels, (frames - 1) // t + 1, self.height // s, self.width // s

    def lora_targets(self) -> list[str]:
        return list(ATTENTION_TARGETS + (FFN_TARGETS if self.lora_ffn else ()))

    def with_options(self, **changes) -> GameCleanerConfig:
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return asdict(self)


def _wan(heads, ffn, layers, channels, head_dim=128) -> dict:
    return {
        "patch_size": [1, 2, 2],
        "num_attention_heads": heads,
        "attention_head_dim": head_dim,
        "in_channels": channels,
        "out_channels": channels,
        "text_dim": 4096,
        "freq_dim": 256,
        "ffn_dim": ffn,
        "num_layers": layers,
        "cross_attn_norm": True,
        "qk_norm": "rms_norm_across_heads",
        "eps": 1e-6,
        "rope_max_seq_len": 1024,
    }


_WAN21_VAE = {"base_dim": 96, "z_dim": 16}  # diffusers defaults carry Wan2.1's latent statistics

# Wan2.2's 48 latent channels' statistics, as the released Wan2.2-TI2V-5B VAE's config carries them
# (and diffusers' Wan conversion script writes them): diffusers' defaults hold Wan2.1's 16, which a
# random-initialised 48-channel VAE cannot broadcast against.
WAN22_LATENTS_MEAN = [
    -0.2289, -0.0052, -0.1323, -0.2339, -0.2799, 0.0174, 0.1838, 0.1557,
    -0.1382, 0.0542, 0.2813, 0.0891, 0.1570, -0.0098, 0.0375, -0.1825,
    -0.2246, -0.1207, -0.0698, 0.5109, 0.2665, -0.2108, -0.2158, 0.2502,
    -0.2055, -0.0322, 0.1109, 0.1567, -0.0729, 0.0899, -0.2799, -0.1230,
    -0.0313, -0.1649, 0.0117, 0.0723, -0.2839, -0.2083, -0.0520, 0.3748,
    0.0152, 0.1957, 0.1433, -0.2944, 0.3573, -0.0548, -0.1681, -0.0667,
]  # fmt: skip
WAN22_LATENTS_STD = [
    0.4765, 1.0364, 0.4514, 1.1677, 0.5313, 0.4990, 0.4818, 0.5013,
    0.8158, 1.0344, 0.5894, 1.0901, 0.6885, 0.6165, 0.8454, 0.4978,
    0.5759, 0.3523, 0.7135, 0.6804, 0.5833, 1.4146, 0.8986, 0.5659,
    0.7069, 0.5338, 0.4889, 0.4917, 0.4069, 0.4999, 0.6866, 0.4093,
    0.5709, 0.6065, 0.6415, 0.4944, 0.5726, 1.2042, 0.5458, 1.6887,
    0.3971, 1.0600, 0.3943, 0.5537, 0.5444, 0.4089, 0.7468, 0.7744,
]  # fmt: skip
_WAN22_VAE = {
    "base_dim": 160,
    "decoder_base_dim": 256,
    "z_dim": 48,
    "is_residual": True,
    "in_channels": 12,
    "out_channels": 12,
    "patch_size": 2,
    "scale_factor_spatial": 16,
    "scale_factor_temporal": 4,
    "latents_mean": WAN22_LATENTS_MEAN,
    "latents_std": WAN22_LATENTS_STD,
}

_TINY_MLLM = {
    "model_type": "qwen2_5_vl",
    "text_config": {
        "vocab_size": 512,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "max_position_embeddings": 4096,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
        "bos_token_id": 510,
        "eos_token_id": 511,
    },
    "vision_config": {
        "depth": 1,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_heads": 2,
        "out_hidden_size": 64,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
        "window_size": 56,
        "fullatt_block_indexes": [0],
        "tokens_per_second": 2,
    },
    "bos_token_id": 510,
    "eos_token_id": 511,
    "image_token_id": 500,
    "video_token_id": 501,
    "vision_start_token_id": 502,
    "vision_end_token_id": 503,
}

PRESETS: dict[str, GameCleanerConfig] = {
    "tiny": GameCleanerConfig(
        "tiny",
        width=32,
        height=32,
        frames=17,
        mllm_frames=4,
        mllm_frame_pixels=56 * 56,
        num_queries=8,
        lora_rank=4,
        lora_alpha=4,
        dit=_wan(heads=2, ffn=64, layers=2, channels=4, head_dim=16) | {"text_dim": 64},
        vae={
            "base_dim": 8,
            "z_dim": 4,
            "dim_mult": [1, 1, 1, 1],
            "num_res_blocks": 1,
            "latents_mean": [0.0] * 4,
            "latents_std": [1.0] * 4,
        },
        mllm=_TINY_MLLM,
    ),
    "wan21-1.3b": GameCleanerConfig(
        "wan21-1.3b", width=832, height=480, dit=_wan(heads=12, ffn=8960, layers=30, channels=16), vae=_WAN21_VAE
    ),
    "wan22-ti2v-5b": GameCleanerConfig(
        "wan22-ti2v-5b", width=1280, height=704, dit=_wan(heads=24, ffn=14336, layers=30, channels=48), vae=_WAN22_VAE
    ),
    "wan21-14b": GameCleanerConfig(
        "wan21-14b", width=1280, height=720, dit=_wan(heads=40, ffn=13824, layers=40, channels=16), vae=_WAN21_VAE
    ),
}


# the WanTransformer3DModel config fields that fix the architecture (and so every weight's shape)
ARCHITECTURE_FIELDS = (
    "patch_size",
    "num_attention_heads",
    "attention_head_dim",
    "in_channels",
    "out_channels",
    "ffn_dim",
    "num_layers",
    "cross_attn_norm",
    "qk_norm",
    "image_dim",
    "added_kv_proj_dim",
)


def base_differences(config: GameCleanerConfig, dit_config: dict) -> list[str]:
    """The architecture fields where a base's transformer config (its config.json) differs from the preset."""

    def value(cfg, key):
        v = cfg.get(key)
        return list(v) if isinstance(v, (list, tuple)) else v

    return [
        f"{key}: preset {value(config.dit, key)!r}, base {value(dit_config, key)!r}"
        for key in ARCHITECTURE_FIELDS
        if value(config.dit, key) != value(dit_config, key)
    ]


def get_preset(name: str) -> GameCleanerConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown GameCleaner preset {name!r}: use one of {sorted(PRESETS)}")
    return PRESETS[name]
