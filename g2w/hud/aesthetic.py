"""Video-conditioned aesthetic matching (Appendix D): prefer assets that look like the clip.

D.1: probe P = min(N, max(2K, 10)) frames uniformly, describe each, keep first the probe most
similar to the normalized median descriptor, then add the farthest probe from those kept until
K (default 8). D.3: an asset scores s = 0.70 median(V a) + 0.30 max(V a) against the keyframe
descriptors V; with neural features too, s = 0.68 s_visual + 0.32 (s_neural + 1) / 2. An asset
is then drawn with probability proportional to exp((s - s_max) / tau), tau = max(0.025,
0.24 range(s)), so matching favours good fits without always taking the single best.

The optional neural feature is an EfficientNet-B0 global-average-pooled embedding, loaded from
a local weights file (nothing is downloaded); without one, the hand-crafted descriptor is used
alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from g2w.hud.descriptor import appearance_descriptor
from g2w.hud.profile import NEURAL_MIX, TEMPERATURE, TOP_ALTERNATIVES, VISUAL_WEIGHTS


def probe_indices(frame_count: int, keyframes: int) -> np.ndarray:
    """Uniformly spaced frame indices, P = min(N, max(2K, 10)) of them."""
    p = min(frame_count, max(2 * keyframes, 10))
    return np.unique(np.linspace(0, frame_count - 1, p).round().astype(int))


def select_keyframes(descriptors: np.ndarray, keyframes: int) -> list[int]:
    """Rows of `descriptors` (unit vectors) to keep: median-nearest first, then farthest-point."""
    median = np.median(descriptors, axis=0)
    median /= max(float(np.linalg.norm(median)), 1e-12)
    chosen = [int(np.argmax(descriptors @ median))]
    nearest = 1.0 - descriptors @ descriptors[chosen[0]]  # cosine distance to the kept set
    while len(chosen) < min(keyframes, len(descriptors)):
        nearest[chosen] = -1.0
        nxt = int(np.argmax(nearest))
        chosen.append(nxt)
        nearest = np.minimum(nearest, 1.0 - descriptors @ descriptors[nxt])
    return chosen


class NeuralDescriptor:
    """EfficientNet-B0 pooled features from a local state-dict file (torchvision layout)."""

    def __init__(self, weights_path: str, device: str = "cpu"):
        import torch
        import torchvision

        self.torch = torch
        self.model = torchvision.models.efficientnet_b0(weights=None)
        self.model.load_state_dict(torch.load(weights_path, map_location="cpu", weights_only=True))
        self.model.eval().to(device)
        self.device = device
        self.mean = torch.tensor([0.485, 0.456, 0.406], device=device).view(1, 3, 1, 1)
        self.std = torch.tensor([0.229, 0.224, 0.225], device=device).view(1, 3, 1, 1)

    def __call__(self, rgb: np.ndarray, alpha: np.ndarray | None = None) -> np.ndarray:
        """A unit vector for one RGB image; transparent pixels are shown over mid-grey."""
        import cv2

        rgb = rgb.astype(np.float32)
        if alpha is not None:
            a = alpha.astype(np.float32)[..., None] / 255.0
            rgb = rgb * a + 128.0 * (1 - a)
        x = cv2.resize(rgb, (224, 224), interpolation=cv2.INTER_AREA) / 255.0
        t = self.torch.from_numpy(x).permute(2, 0, 1)[None].to(self.device)
        with self.torch.no_grad():
            feat = self.model.avgpool(self.model.features((t - self.mean) / self.std)).flatten()
        feat = feat.cpu().numpy().astype(np.float64)  # float64: norms of tiny activations stay exact
        return (feat / max(float(np.linalg.norm(feat)), 1e-300)).astype(np.float32)


@dataclass
class VideoAppearance:
    """The clip's keyframe descriptors (K, D), and neural ones when a model is given."""

    frame_indices: list[int]
    visual: np.ndarray
    neural: np.ndarray | None = None

    @classmethod
    def from_frames(
        cls, frames: np.ndarray, indices: list[int], keyframes: int, neural: NeuralDescriptor | None = None
    ) -> VideoAppearance:
        descs = np.stack([appearance_descriptor(f) for f in frames])
        keep = select_keyframes(descs, keyframes)
        neural_v = np.stack([neural(frames[k]) for k in keep]) if neural else None
        return cls([int(indices[k]) for k in keep], descs[keep], neural_v)


def profile_similarity(asset_vec: np.ndarray, keyframes: np.ndarray) -> float:
    sims = keyframes @ np.asarray(asset_vec, np.float32)
    return float(VISUAL_WEIGHTS[0] * np.median(sims) + VISUAL_WEIGHTS[1] * np.max(sims))


def temperature(scores: np.ndarray) -> float:
    return max(TEMPERATURE[0], TEMPERATURE[1] * float(scores.max() - scores.min()))


def weighted_choice(scores: np.ndarray, rng: np.random.Generator) -> tuple[int, float]:
    """Index drawn with softmax-like weights at temperature tau; returns (index, tau)."""
    tau = temperature(scores)
    w = np.exp((scores - scores.max()) / tau)
    return int(rng.choice(len(scores), p=w / w.sum())), tau


class AestheticScorer:
    """Scores assets against one clip; neural features of assets are computed once each."""

    def __init__(self, video: VideoAppearance, neural: NeuralDescriptor | None = None):
        self.video = video
        self.neural = neural if video.neural is not None else None
        self._neural_cache: dict[str, np.ndarray] = {}

    def score(self, asset_id: str, descriptor, rgba: np.ndarray | None = None) -> float:
        s = profile_similarity(np.asarray(descriptor, np.float32), self.video.visual)
        if self.neural is not None and rgba is not None:
            if asset_id not in self._neural_cache:
                self._neural_cache[asset_id] = self.neural(rgba[..., :3], rgba[..., 3])
            n = profile_similarity(self._neural_cache[asset_id], self.video.neural)
            s = NEURAL_MIX[0] * s + NEURAL_MIX[1] * (n + 1) / 2
        return s

    def choose(self, candidates: list, scores: np.ndarray, rng: np.random.Generator) -> tuple[int, dict]:
        """Pick among candidates (objects with .asset_id); returns the index and diagnostics."""
        k, tau = weighted_choice(scores, rng)
        order = np.argsort(-scores, kind="stable")[:TOP_ALTERNATIVES]
        return k, {
            "score": round(float(scores[k]), 6),
            "tau": round(tau, 6),
            "candidates": len(candidates),
            "alternatives": [{"asset_id": candidates[i].asset_id, "score": round(float(scores[i]), 6)} for i in order],
        }
