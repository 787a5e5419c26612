"""The training record beside a segmenter checkpoint: written, read back, refused with unknown keys,
and present for the shipped weights, whose record names the real games they saw."""

import pytest

from g2w.segment.predict import DEFAULT_CHECKPOINT
from g2w.segment.provenance import read_training, training_sentence, write_training


def test_record_round_trip_and_sentence(tmp_path):
    assert read_training(str(tmp_path)) is None
    assert "no game here is stated to be held out" in training_sentence(None)
    write_training(str(tmp_path), real_pairs=["freedm", "cube2"], real_clean_clips=["cube2"])
    record = read_training(str(tmp_path))
    assert record == {"real_pairs": ["cube2", "freedm"], "real_clean_clips": ["cube2"], "refiner_real_pairs": []}
    sentence = training_sentence(record)
    assert "real HUD/clean pairs of cube2, freedm" in sentence and "refiner on real pairs of no game" in sentence
    with pytest.raises(ValueError, match="unknown"):
        write_training(str(tmp_path), real_games=["cube2"])


def test_shipped_weights_record_their_real_games():
    record = read_training(DEFAULT_CHECKPOINT)
    assert record is not None and record["real_pairs"]
