"""Segmentation metrics against hand-computed values."""

import numpy as np
import pytest

from g2w.segment.metrics import SegmentationScore, average_precision, box_iou
from g2w.taxonomy import LABELS


def test_box_iou():
    assert box_iou([0, 0, 10, 10], [0, 0, 10, 10]) == 1.0
    assert box_iou([0, 0, 10, 10], [5, 0, 15, 10]) == pytest.approx(50 / 150)
    assert box_iou([0, 0, 10, 10], [10, 0, 20, 10]) == 0.0


def test_average_precision_ranks_by_score():
    truths = [("f0", [0, 0, 10, 10]), ("f1", [0, 0, 10, 10])]
    perfect = [("f0", 0.9, [0, 0, 10, 10]), ("f1", 0.8, [1, 0, 10, 10])]
    assert average_precision(perfect, truths) == pytest.approx(1.0)
    # a confident false positive first: precisions 0, 1/2, 2/3 at recalls 0, 1/2, 1; interpolated,
    # every recall level takes the best precision at or beyond it (2/3)
    with_fp = [("f0", 0.99, [50, 50, 60, 60])] + perfect
    assert average_precision(with_fp, truths) == pytest.approx(2 / 3)
    # a false positive between the hits: precision 1 up to recall 1/2, then 2/3
    middle = [perfect[0], ("f0", 0.85, [50, 50, 60, 60]), perfect[1]]
    assert average_precision(middle, truths) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    # a duplicate of a matched box is a false positive, not a second hit
    assert average_precision([("f0", 0.9, [0, 0, 10, 10]), ("f0", 0.8, [0, 0, 10, 10])], truths[:1]) == 1.0
    assert average_precision([], truths) == 0.0
    assert average_precision(perfect, []) is None


def test_pixel_scores_and_per_label_recall():
    truth = np.zeros((4, 4), bool)
    truth[:2, :2] = True  # 4 UI pixels
    labels = np.full((4, 4), -1)
    labels[:2, :2] = LABELS.index("crosshair")
    predicted = np.zeros((4, 4), bool)
    predicted[:2, :1] = True  # 2 found
    predicted[3, 3] = True  # 1 false positive
    score = SegmentationScore()
    score.add_pixels(predicted, truth, np.full((4, 4), LABELS.index("crosshair")), labels)
    result = score.result()
    assert result["mask_iou"] == pytest.approx(2 / 5)
    assert result["pixel_f1"] == pytest.approx(4 / 7, abs=1e-4)
    assert result["label_recall"] == {"crosshair": 0.5}
    assert result["label_accuracy"] == {"crosshair": 0.5}


def test_truth_boxes_are_the_annotations_instances_at_model_size():
    from g2w.segment.task import annotation_boxes

    annotation = {
        "width": 1280,
        "height": 720,
        "instances": [{"id": "status", "label": "player_status"}, {"id": "msg", "label": "screen_notice"}],
        "frames": [
            {"frame": 0, "objects": [{"id": "msg", "box": [0, 0, 410, 28]}]},
            {
                "frame": 1,
                "objects": [{"id": "status", "box": [4, 601, 518, 719]}, {"id": "msg", "box": [0, 0, 410, 28]}],
            },
        ],
    }
    # one box per widget (not per glyph), scaled outwards to whole pixels of the 256x144 input
    assert annotation_boxes(annotation, 1, 256, 144) == [
        ("player_status", [0, 120, 104, 144]),
        ("screen_notice", [0, 0, 82, 6]),
    ]
    assert annotation_boxes(annotation, 0, 256, 144) == [("screen_notice", [0, 0, 82, 6])]
    assert annotation_boxes(annotation, 5, 256, 144) == []
