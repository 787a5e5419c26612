"""A compact spatio-temporal UI segmenter: where is screen-space UI, and which of the 21 labels.

Screen-space UI stays put while the world moves, so besides a short stack of frames the network
sees per-pixel temporal statistics over a longer span (median and spread, see
`g2w.segment.inputs`). It is a small U-Net run at reduced resolution (long side
`input_long_side`); its logits are upsampled to the frame's own size, which keeps it fast enough
for 720p on two CPU cores. Two heads share the decoder: one UI logit per pixel and 21 label
logits per pixel at half resolution (read only where the UI logit is positive).

Saving and loading go through the config (`save_pretrained` / `from_pretrained`, safetensors),
so a tiny config builds the same model class for tests.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import nn

from g2w.taxonomy import LABELS

WEIGHTS_NAME = "hud_segmenter.safetensors"
CONFIG_NAME = "hud_segmenter.json"


@dataclass(frozen=True)
class HudSegmenterConfig:
    stack: int = 3  # frames in the short stack, centred on the frame segmented
    stack_step: int = 2  # frames between stack members
    span: int = 32  # frames per temporal-statistics window
    input_long_side: int = 256  # the network runs with the frame's long side scaled to this
    widths: tuple[int, ...] = (16, 32, 64, 96)  # channels per U-Net level (each level halves the size)
    num_labels: int = len(LABELS)
    refine_width: int = 12  # channels of the refinement convolutions at the input resolution
    refine_depth: int = 1  # dense 3x3 convolutions (BatchNorm, ReLU) before the refinement's output
    refine_median: bool = True  # the refinement also sees the temporal median (RGB)
    # an OCR text-proposal map as one more input plane, the first (`g2w.segment.text_proposals`),
    # from a detector run on every `text_every`-th frame at `text_long_side`; off in older configs
    text_channel: bool = False
    text_every: int = 30
    text_long_side: int = 640

    @property
    def in_channels(self) -> int:
        # [the text-proposal map,] the stack's RGB, the temporal median RGB, and the temporal spread
        return int(self.text_channel) + 3 * self.stack + 3 + 1

    @classmethod
    def tiny(cls) -> HudSegmenterConfig:
        return cls(span=8, input_long_side=96, widths=(8, 12, 16))

    @classmethod
    def from_dict(cls, data: dict) -> HudSegmenterConfig:
        # configs written before the refinement options existed describe the old refinement
        old = {"refine_depth": 1, "refine_median": False}
        return cls(**{**old, **data, "widths": tuple(data["widths"])})

    @property
    def refine_channels(self) -> int:
        """Refinement input: the upsampled UI logit, the current frame (RGB), the median (RGB,
        when `refine_median`) and the spread."""
        return 1 + 3 + 3 * self.refine_median + 1


def _conv(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Dense 3x3 convolution, BatchNorm, ReLU."""
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _separable(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    """Depthwise 3x3 (BatchNorm) then pointwise 1x1 (BatchNorm, ReLU): about 9x cheaper than a
    dense 3x3 at these widths, with the same receptive field."""
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride, 1, groups=cin, bias=False),
        nn.BatchNorm2d(cin),
        nn.Conv2d(cin, cout, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class HudSegmenter(nn.Module):
    """(B, in_channels, H, W) in 0..1 -> UI logits (B, 1, H, W) and label logits (B, 21, ceil(H/2), ceil(W/2)).

    The encoder starts with one dense stride-2 convolution, so nothing but that stem and the
    last decoder merge runs at half the input resolution; every other layer is a depthwise-
    separable block at a quarter of the input resolution or below (most of the cost of a
    segmenter is in its highest-resolution layers). A small refinement convolution then
    sharpens the upsampled UI logit against the current frame and the temporal spread at the
    input resolution, which is where thin strokes are recovered.
    """

    def __init__(self, config: HudSegmenterConfig):
        super().__init__()
        self.config = config
        w = config.widths
        self.stem = _conv(config.in_channels, w[0], stride=2)
        self.down = nn.ModuleList(
            nn.Sequential(_separable(w[i], w[i + 1], 2), _separable(w[i + 1], w[i + 1])) for i in range(len(w) - 1)
        )
        self.up = nn.ModuleList(_separable(w[i + 1] + w[i], w[i]) for i in reversed(range(len(w) - 1)))
        self.ui_head = nn.Conv2d(w[0], 1, 1)
        self.label_head = nn.Conv2d(w[0], config.num_labels, 1)
        # refinement input: upsampled UI logit, the current frame (RGB), [the median (RGB),] the spread
        r = config.refine_width
        layers = [_conv(config.refine_channels, r)] + [_conv(r, r) for _ in range(config.refine_depth - 1)]
        self.refine = nn.Sequential(*layers, nn.Conv2d(r, 1, 3, 1, 1))

    @property
    def multiple(self) -> int:
        """Input sizes must be multiples of this (the stem and each extra level halve the size)."""
        return 2 ** len(self.config.widths)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h, w = x.shape[-2:]
        m = self.multiple
        pad_h, pad_w = (-h) % m, (-w) % m
        if pad_h or pad_w:
            x = F.pad(x, (0, pad_w, 0, pad_h), mode="replicate")
        skips = [self.stem(x)]
        for down in self.down:
            skips.append(down(skips[-1]))
        y = skips.pop()
        for up in self.up:
            skip = skips.pop()
            y = up(torch.cat([F.interpolate(y, size=skip.shape[-2:], mode="nearest"), skip], 1))
        size = x.shape[-2:]
        coarse = F.interpolate(self.ui_head(y), size=size, mode="bilinear", align_corners=False)
        current = int(self.config.text_channel) + 3 * (self.config.stack // 2)
        median = [x[:, -4:-1]] if self.config.refine_median else []
        ui = coarse + self.refine(torch.cat([coarse, x[:, current : current + 3], *median, x[:, -1:]], 1))
        # labels stay at half resolution: they only name regions the UI logit has found
        return ui[..., :h, :w], self.label_head(y)[..., : (h + 1) // 2, : (w + 1) // 2]

    def for_inference(self) -> HudSegmenter:
        """An eval-mode copy with each BatchNorm folded into the convolution before it and
        channels-last weights: the same outputs (to float rounding), about 1.7x faster on CPU,
        where the small-channel convolutions dominate. Feed it channels-last inputs."""
        model = copy.deepcopy(self).eval()
        for seq in model.modules():
            if not isinstance(seq, nn.Sequential):
                continue
            for i in range(len(seq) - 1):
                conv, bn = seq[i], seq[i + 1]
                if isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d):
                    scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
                    bias = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
                    conv.weight = nn.Parameter(conv.weight * scale[:, None, None, None])
                    conv.bias = nn.Parameter((bias - bn.running_mean) * scale + bn.bias)
                    seq[i + 1] = nn.Identity()
        return model.to(memory_format=torch.channels_last).requires_grad_(False)

    def save_pretrained(self, directory: str) -> str:
        from safetensors.torch import save_file

        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, CONFIG_NAME), "w") as f:
            json.dump(asdict(self.config), f, indent=1)
        path = os.path.join(directory, WEIGHTS_NAME)
        save_file({k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}, path)
        return path

    @classmethod
    def from_pretrained(cls, directory: str, device: str = "cpu") -> HudSegmenter:
        from safetensors.torch import load_file

        with open(os.path.join(directory, CONFIG_NAME)) as f:
            model = cls(HudSegmenterConfig.from_dict(json.load(f)))
        model.load_state_dict(load_file(os.path.join(directory, WEIGHTS_NAME), device=device))
        return model.to(device).eval()


REFINER_WEIGHTS = "hud_refiner.safetensors"
REFINER_CONFIG = "hud_refiner.json"


@dataclass(frozen=True)
class FullResRefinerConfig:
    """The full-resolution refinement (`FullResRefiner`), run after the segmenter on tiles of the
    video's own pixel grid near the UI it found."""

    width: int = 8  # channels of the hidden convolutions
    tile: int = 32  # full-resolution tile side; only tiles holding a candidate pixel are refined
    low: float = 0.25  # upsampled UI probability that makes a pixel (and its tile) a candidate
    window_max: bool = False  # a sixth evidence channel: the window's temporal maximum of the coarse logit / 4
    dilations: tuple[int, ...] = (1, 2, 1)  # one unpadded 3x3 convolution per entry, with this dilation

    @property
    def channels(self) -> int:
        return 6 if self.window_max else 5

    @property
    def margin(self) -> int:
        """Pixels each side of a tile that the convolutions consume."""
        return sum(self.dilations)

    @classmethod
    def from_dict(cls, data: dict) -> FullResRefinerConfig:
        data = dict(data)
        if "dilations" in data:
            data["dilations"] = tuple(data["dilations"])
        return cls(**data)


class FullResRefiner(nn.Module):
    """(B, C, T + 2m, T + 2m) evidence -> refined UI logits (B, 1, T, T), m = `margin`.

    Evidence channels, all at the video's own resolution (`g2w.segment.fullres.evidence`): the
    segmenter's upsampled UI logit, the frame's luma, the window's temporal median of luma, the
    spread (mean absolute deviation from the median) and the frame's absolute difference from
    the median; with `window_max`, also the maximum of the coarse logit over the statistics
    window (a widget that fades or blinks stays UI in the frames where it is faint). Unpadded
    3x3 convolutions, one per entry of `dilations` (by default three, the middle one dilated by
    2, seeing 4 px around each pixel: enough to tell a static glyph's pixels and its rim from the
    moving world in the gap next to it); the output is a correction added to the coarse logit.
    """

    def __init__(self, config: FullResRefinerConfig | None = None):
        super().__init__()
        self.config = config or FullResRefinerConfig()
        w, dilations = self.config.width, self.config.dilations
        layers: list[nn.Module] = []
        for k, d in enumerate(dilations):
            last = k == len(dilations) - 1
            layers.append(nn.Conv2d(self.config.channels if k == 0 else w, 1 if last else w, 3, dilation=d))
            if not last:
                layers.append(nn.ReLU(inplace=True))
        self.net = nn.Sequential(*layers)

    @property
    def margin(self) -> int:
        """Pixels each side the convolutions consume (the sum of the dilations)."""
        return self.config.margin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        m = self.margin
        return x[:, :1, m:-m, m:-m] * 4 + self.net(x)  # channel 0 is the coarse logit / 4

    def save_pretrained(self, directory: str) -> str:
        from safetensors.torch import save_file

        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, REFINER_CONFIG), "w") as f:
            json.dump(asdict(self.config), f, indent=1)
        path = os.path.join(directory, REFINER_WEIGHTS)
        save_file({k: v.detach().cpu().contiguous() for k, v in self.state_dict().items()}, path)
        return path

    @classmethod
    def from_pretrained(cls, directory: str) -> FullResRefiner | None:
        """The refiner saved in `directory`, or None when the folder has none."""
        from safetensors.torch import load_file

        path = os.path.join(directory, REFINER_WEIGHTS)
        if not os.path.exists(path):
            return None
        with open(os.path.join(directory, REFINER_CONFIG)) as f:
            model = cls(FullResRefinerConfig.from_dict(json.load(f)))
        model.load_state_dict(load_file(path))
        return model.eval()
