"""Where GameCleaner's reference comes from: only what a user has, an oracle labelled as one."""

import json

import cv2
import numpy as np
import pytest

from g2w.cases.case import Case
from g2w.jobs.evaluate import method_info
from g2w.remove import get_method
from g2w.remove.gamecleaner_reference import (
    ReferenceError,
    fit_reference,
    image_path,
    read_reference_image,
    reference_source,
    reference_video,
)


def test_the_source_is_what_the_options_name_and_none_by_default():
    assert reference_source() == "none"
    assert reference_source("self") == "self"
    assert reference_source(None, "ref.png") == reference_source("image", "ref.png") == "image"
    for bad in (("oracle", "ref.png"), ("image", None), ("first-clean-frame", None)):
        with pytest.raises(ValueError):
            reference_source(*bad)


def test_a_ground_truth_reference_is_recorded_and_labelled_as_an_oracle(tmp_path):
    method = get_method("gamecleaner")
    assert method.traits({"reference": "oracle"})["reference_oracle"] is True
    assert method.traits({"reference_image": "a.png"}) == {
        "mask": False,
        "ref_pt": True,
        "reference": "image",
        "reference_oracle": False,
    }
    assert "reference" not in get_method("propagate").traits({})
    labels = {}
    for source in ("none", "self", "oracle"):
        folder = tmp_path / source
        folder.mkdir()
        (folder / "method.json").write_text(
            json.dumps({"method": "gamecleaner", **method.traits({"reference": source})})
        )
        labels[source] = method_info(str(folder))["model"]
    assert labels == {
        "none": "gamecleaner",
        "self": "gamecleaner (reference: self)",
        "oracle": "gamecleaner (oracle: ground-truth reference)",
    }


def test_a_reference_of_another_size_is_centre_cropped_to_the_source_aspect_then_resized():
    image = np.zeros((100, 300, 3), np.uint8)  # 3:1, the source is 2:1
    image[:, :25] = 255  # only in the left 25 columns, which the crop to 200x100 removes
    image[:, 50:250] = 80
    out = fit_reference(image, 64, 32, source_aspect=2.0)
    assert out.shape == (32, 64, 3)
    assert int(out.max()) == 80 and int(out.min()) == 80
    tall = fit_reference(np.full((400, 100, 3), 7, np.uint8), 64, 32, source_aspect=2.0)
    assert tall.shape == (32, 64, 3) and int(tall.max()) == 7


def test_reference_images_per_case_from_a_folder_and_unreadable_ones_refused(tmp_path):
    rgb = np.zeros((45, 80, 3), np.uint8)
    rgb[..., 0] = 200  # red, to see the colour order
    cv2.imwrite(str(tmp_path / "c1.png"), rgb[..., ::-1])
    (tmp_path / "c2.jpg").write_bytes(b"not an image")
    frame = read_reference_image(image_path(str(tmp_path), "c1"), 32, 18, 80 / 45)
    assert frame.shape == (1, 18, 32, 3) and int(frame[0, 5, 5, 0]) == 200 and int(frame[0, 5, 5, 2]) == 0
    with pytest.raises(ReferenceError) as err:
        read_reference_image(image_path(str(tmp_path), "c2"), 32, 18, 1.0)
    assert err.value.reason == "reference_unreadable"
    with pytest.raises(ReferenceError) as err:
        image_path(str(tmp_path), "c3")
    assert err.value.reason == "reference_missing"
    with pytest.raises(ReferenceError):
        read_reference_image(str(tmp_path / "gone.png"), 32, 18, 1.0)


def test_an_oracle_needs_the_cases_ground_truth_and_none_or_image_need_no_video(tmp_path):
    wild = Case("w", "wild", str(tmp_path / "w.mp4"), "a.json")
    with pytest.raises(ReferenceError):
        with reference_video(wild, "oracle"):
            pass
    clean = tmp_path / "clean.mp4"
    clean.write_bytes(b"")
    with reference_video(Case("s", "synthetic", "s.mp4", "a.json", reference=str(clean)), "oracle") as video:
        assert video == str(clean)
    for source in ("none", "image"):
        with reference_video(wild, source) as video:
            assert video is None
