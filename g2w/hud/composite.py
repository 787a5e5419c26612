"""Straight-alpha "over" compositing of HUD layers onto a clean frame, and the binary UI mask.

out = fg * a + out * (1 - a), layer by layer in draw order, in float32, rounded once at the end;
the mask is 255 wherever any layer's (thresholded) alpha is non-zero. Where no layer draws, a = 0
and the clean pixel passes through bit for bit, so HUD and clean frames can only differ inside
the mask.

Two backends compute the same expression: numpy on the CPU, and torch on CUDA when a GPU is
present (`device="auto"`). They agree to within one level of rounding (the GPU may fuse the
multiply-add).

On the CPU only the layers' own boxes are blended: layers are grouped into boxes that do not
overlap one another, each group's box is blended in float32 in draw order and rounded once, and
every other pixel is copied. That is the same arithmetic pixel for pixel (a pixel no layer
covers rounds back to itself), at a fraction of a full-frame float pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from g2w.hud.layers import Layer
from g2w.hud.patches import visible_part
from g2w.types import Box


def resolve_device(device: str) -> str:
    if device not in ("auto", "cpu", "cuda"):
        raise ValueError(f"device must be auto, cpu or cuda, not {device!r}")
    if device == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise RuntimeError("device=cuda was asked for but CUDA is not available")
    return "cpu"


class Compositor:
    def __init__(self, device: str = "auto"):
        self.device = resolve_device(device)
        if self.device == "cuda":
            import torch

            self.torch = torch

    def __call__(self, frame: np.ndarray, layers: Sequence[Layer]) -> tuple[np.ndarray, np.ndarray]:
        """(HUD frame, mask) for an (H, W, 3) uint8 clean frame."""
        if self.device == "cuda":
            return self._torch(frame, layers)
        return self._numpy(frame, layers)

    @staticmethod
    def _regions(frame: np.ndarray, layers: Sequence[Layer]):
        height, width = frame.shape[:2]
        for layer in layers:
            h, w = layer.rgba.shape[:2]
            src, dst = visible_part(layer.x, layer.y, w, h, width, height)
            if not dst.empty:
                yield layer.rgba[src.y1 : src.y2, src.x1 : src.x2], dst

    def _numpy(self, frame, layers):
        hud = frame.copy()
        mask = np.zeros(frame.shape[:2], np.uint8)
        for box, members in disjoint_groups(list(self._regions(frame, layers))):
            out = frame[box.y1 : box.y2, box.x1 : box.x2].astype(np.float32)
            for patch, dst in members:
                a = patch[..., 3:4].astype(np.float32) / np.float32(255.0)
                region = out[dst.y1 - box.y1 : dst.y2 - box.y1, dst.x1 - box.x1 : dst.x2 - box.x1]
                region[:] = patch[..., :3].astype(np.float32) * a + region * (np.float32(1.0) - a)
                mask[dst.y1 : dst.y2, dst.x1 : dst.x2][patch[..., 3] > 0] = 255
            hud[box.y1 : box.y2, box.x1 : box.x2] = np.rint(out).astype(np.uint8)
        return hud, mask

    def _torch(self, frame, layers):
        torch = self.torch
        out = torch.from_numpy(frame).to("cuda", non_blocking=True).float()
        mask = torch.zeros(frame.shape[:2], dtype=torch.uint8, device="cuda")
        for patch, dst in self._regions(frame, layers):
            p = torch.from_numpy(np.ascontiguousarray(patch)).to("cuda", non_blocking=True)
            a = p[..., 3:4].float() / 255.0
            region = out[dst.y1 : dst.y2, dst.x1 : dst.x2]
            region.copy_(p[..., :3].float() * a + region * (1.0 - a))
            m = mask[dst.y1 : dst.y2, dst.x1 : dst.x2]
            m[p[..., 3] > 0] = 255
        return torch.round(out).to(torch.uint8).cpu().numpy(), mask.cpu().numpy()


def disjoint_groups(regions: list[tuple[np.ndarray, Box]]) -> list[tuple[Box, list]]:
    """(box, members in draw order) groups of (patch, dst) whose boxes do not overlap each other.

    Groups whose boxes touch are merged until none do, so blending one group's box can never
    overwrite another group's pixels."""
    groups = [(dst, [i]) for i, (_, dst) in enumerate(regions)]
    merged = True
    while merged:
        merged = False
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if not groups[i][0].intersect(groups[j][0]).empty:
                    groups[i] = (groups[i][0].union(groups[j][0]), groups[i][1] + groups[j][1])
                    del groups[j]
                    merged = True
                    break
            if merged:
                break
    return [(box, [regions[k] for k in sorted(members)]) for box, members in groups]
