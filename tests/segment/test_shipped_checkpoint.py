"""The shipped segmenter loads from g2w/weights and finds the UI in a freshly synthesized sample."""

import os

from g2w.cases.case import load_cases
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter, full_mask
from g2w.video import iter_masks

# Set from the checkpoint's measurements: with its full-resolution refiner, IoU 0.444 on this
# fixture (320x180 clips, a size absent from its training data, where thin widgets shrink below
# the 256 px input's resolution); the plain upsampled mask scores 0.386 here (floor 0.33 before
# the refiner). Held-out full-size validation: 0.80 on synthesized pairs and 0.77 on the unseen
# FreeDM maps (model card). The floor leaves room for codec and platform differences, not for a
# broken model or a refiner that stopped helping.
IOU_FLOOR = 0.40


def test_shipped_checkpoint_is_small_and_finds_the_ui(synth_out):
    weights = os.path.join(DEFAULT_CHECKPOINT, "hud_segmenter.safetensors")
    assert os.path.getsize(weights) <= 10 * 2**20
    assert os.path.exists(os.path.join(DEFAULT_CHECKPOINT, "hud_segmenter.md"))  # the model card
    segmenter = Segmenter(full_res=True)
    assert segmenter.refiner is not None  # hud_refiner.* ships beside the segmenter
    score = SegmentationScore()
    for case in load_cases(synth_out):  # drawn widgets the segmenter never saw, on fresh clips
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask), strict=True):
            score.add_pixels(full_mask(pred, case.width, case.height) > 0, truth >= 128)
    print("shipped checkpoint mask IoU on the fixture:", score.result()["mask_iou"])
    assert score.result()["mask_iou"] > IOU_FLOOR, score.result()
