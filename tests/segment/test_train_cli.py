"""`g2w hud-segmenter train` end to end on local Ray through the shared harness (2 steps, tiny crop,
half the examples with a screen-anchored hard negative, narrow widths, a shared sample cache): the
documented outputs exist, the model folder loads like the shipped checkpoint with the widths asked
for, and decoded samples land in the cache folder given (resuming is tested in test_overfit.py and
tests/train)."""

import json
import os

import pytest

from g2w.cli import main
from g2w.models.hud_segmenter import HudSegmenter


@pytest.mark.slow
def test_train_command_writes_its_outputs(ray_local, synth_out, tmp_path):
    run, cache = tmp_path / "run", tmp_path / "shared_cache"
    args = [
        "hud-segmenter",
        "train",
        "--data",
        synth_out,
        "--val",
        synth_out,
        "--output",
        str(run),
        "--steps",
        "2",
        "--eval-every",
        "1",
        "--batch-size",
        "2",
        "--crop",
        "48",
        "--anchored-negatives",
        "0.5",
        "--widths",
        "8",
        "12",
        "16",
        "--cache",
        str(cache),
    ]
    assert main(args) == 0
    for name in (
        "model/hud_segmenter.json",
        "model/hud_segmenter.safetensors",
        "metrics.json",
        "history.json",
        "loss.png",
        "overlays.png",
        "report.html",
        "weights.safetensors",
    ):
        assert (run / name).exists(), name
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["steps"] == 2 and 0.0 <= metrics["validation"]["mask_iou"] <= 1.0
    assert metrics["anchored_negatives"] == 0.5
    assert "overlays.png" in (run / "report.html").read_text()
    model = HudSegmenter.from_pretrained(str(run / "model"))  # strict load, as for g2w/weights
    assert model.config.widths == (8, 12, 16)
    assert any(name.endswith(".npz") for name in os.listdir(cache)) and not (run / "cache").exists()
    assert [h["step"] for h in json.loads((run / "history.json").read_text())] == [1, 2]
    assert len([d for d in os.listdir(run) if d.startswith("checkpoint_")]) >= 1
