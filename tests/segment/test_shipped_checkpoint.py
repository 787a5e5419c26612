"""The shipped segmenter loads from g2w/weights and finds the UI in a freshly synthesized sample."""

import os

from g2w.evaluate.cases import load_cases
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter, full_mask
from g2w.video import iter_masks

# Set from the checkpoint's measurements (model card): IoU 0.46 on this fixture when
# shipped; the floor leaves room for codec and platform differences, not for a broken model.
IOU_FLOOR = 0.35


def test_shipped_checkpoint_is_small_and_finds_the_ui(synth_out):
    weights = os.path.join(DEFAULT_CHECKPOINT, "hud_segmenter.safetensors")
    assert os.path.getsize(weights) <= 10 * 2 ** 20
    assert os.path.exists(os.path.join(DEFAULT_CHECKPOINT, "hud_segmenter.md"))  # the model card
    segmenter = Segmenter()
    score = SegmentationScore()
    for case in load_cases(synth_out):  # drawn widgets the segmenter never saw, on fresh clips
        for pred, truth in zip(segmenter.frames(case.source), iter_masks(case.mask), strict=True):
            score.add_pixels(full_mask(pred, case.width, case.height) > 0, truth >= 128)
    assert score.result()["mask_iou"] > IOU_FLOOR, score.result()
