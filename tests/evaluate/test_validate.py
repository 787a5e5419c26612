"""Case validation (J.1): geometry, timeline and the edit-length rule, with recorded reasons."""

import pytest

from g2w.evaluate.validate import CaseInvalid, Geometry, check_edit, check_source

SOURCE = Geometry(1280, 720, 30.0, 150)


def test_matching_edit_passes_with_measurements():
    checks = check_edit(SOURCE, Geometry(832, 468, 16.0, 81))  # another size, same shape
    assert checks["aspect_diff"] <= 0.01 and checks["last_timestamp_s"] == 4.5


@pytest.mark.parametrize(
    "edited, reason",
    [
        (Geometry(1280, 960, 30.0, 150), "aspect_mismatch"),
        (Geometry(1280, 720, 30.0, 100), "edited_too_short"),
        (Geometry(1280, 720, 0.0, 150), "bad_edited"),
        (Geometry(0, 720, 30.0, 150), "bad_edited"),
    ],
)
def test_bad_edits_fail_as_the_methods_fault(edited, reason):
    with pytest.raises(CaseInvalid) as info:
        check_edit(SOURCE, edited)
    assert info.value.reason == reason and info.value.method_fault


def test_aspect_tolerance_boundary():
    # 1280x720 = 1.7778; 1266x720 = 1.7583 (diff 0.0194) fails, 1272x720 = 1.7667 (0.011) fails,
    # 1274x720 = 1.7694 (0.0083) passes.
    check_edit(SOURCE, Geometry(1274, 720, 30.0, 150))
    with pytest.raises(CaseInvalid):
        check_edit(SOURCE, Geometry(1272, 720, 30.0, 150))


def test_annotation_must_describe_the_source():
    check_source(SOURCE, Geometry(1280, 720, 30.0, 150))
    check_source(SOURCE, Geometry(640, 360, 30.0, 150))  # another canvas of the same shape
    for ann, reason in [
        (Geometry(720, 1280, 30.0, 150), "annotation_geometry"),
        (Geometry(1280, 720, 25.0, 150), "annotation_timeline"),
        (Geometry(1280, 720, 30.0, 149), "annotation_timeline"),
    ]:
        with pytest.raises(CaseInvalid) as info:
            check_source(SOURCE, ann)
        assert info.value.reason == reason and not info.value.method_fault
