"""Procedural gameplay-like videos with ground-truth sidecars (cuts, freezes, darkness, blur,
replays, baked HUD), for demos and for testing curation and synthesis against known truth."""

from g2w.sample_data.generate import (
    VideoSpec,
    generate_samples,
    render_frames,
    sidecar_for,
    spec_for,
    write_sample,
)

__all__ = ["VideoSpec", "generate_samples", "render_frames", "sidecar_for", "spec_for", "write_sample"]
