import numpy as np
import pytest

from g2w.video import MaskWriter, iter_masks, probe, read_masks


@pytest.mark.parametrize("width, height", [(64, 48), (33, 17), (1280, 720)])
def test_masks_round_trip_bit_exactly(tmp_path, width, height):
    rng = np.random.default_rng(width)
    masks = [(rng.random((height, width)) > 0.7).astype(np.uint8) * 255 for _ in range(5)]
    path = tmp_path / "mask.mkv"
    with MaskWriter(path, width, height, 30) as writer:
        for m in masks:
            writer.write(m)
    back = read_masks(path)
    assert back.shape == (5, height, width)
    assert all(np.array_equal(a, b) for a, b in zip(masks, back))


def test_every_8_bit_value_survives(tmp_path):
    labels = np.arange(256, dtype=np.uint8).reshape(16, 16)
    path = tmp_path / "labels.mkv"
    with MaskWriter(path, 16, 16, 24) as writer:
        writer.write(labels)
        writer.write(labels[::-1].copy())
    back = list(iter_masks(path))
    assert np.array_equal(back[0], labels) and np.array_equal(back[1], labels[::-1])


def test_mask_file_has_exact_count_and_rate(tmp_path):
    path = tmp_path / "m.mkv"
    with MaskWriter(path, 20, 10, 60) as writer:
        for _ in range(7):
            writer.write(np.zeros((10, 20), np.uint8))
    info = probe(path)
    assert (info.frame_count, info.fps, info.codec) == (7, 60.0, "ffv1")


def test_masks_need_a_matroska_path(tmp_path):
    with pytest.raises(ValueError, match="mkv"):
        MaskWriter(tmp_path / "m.mp4", 8, 8, 30)
