"""An existing removal is reused only when it is the one asked for: the same source bytes, method
and options; a stale, mismatched or unrecorded edit is made afresh."""

import json
import os

import pytest

from g2w.cases.case import Case
from g2w.jobs.remove import remove_one
from g2w.remove import DEFAULT_METHOD
from g2w.remove.gamecleaner_reference import reference_source, reference_video
from g2w.remove.made_from import record_path, reusable_edit, source_digest


@pytest.fixture
def removed(make_video, tmp_path):
    source = make_video("src.mp4", frames=20)
    case = Case("c1", "wild", source, str(tmp_path / "none.json"))
    out = str(tmp_path / "removed")
    row = remove_one(DEFAULT_METHOD, case, out)
    assert row["status"] == "ok" and not row["skipped"]
    return case, out


def test_the_edit_records_what_it_was_made_from_and_is_reused_only_for_that(removed):
    case, out = removed
    made = json.loads(open(record_path(out, "c1")).read())
    assert made == {"method": DEFAULT_METHOD, "options": {}, "source_sha1": source_digest(case.source)}
    edit = os.path.join(out, "c1.mp4")
    assert reusable_edit(out, "c1", case.source, DEFAULT_METHOD, {}) == edit
    assert reusable_edit(out, "c1", case.source, "propagate", {}) is None  # another method
    assert reusable_edit(out, "c1", case.source, DEFAULT_METHOD, {"dilate_px": 4}) is None  # other options
    assert reusable_edit(out, "c2", case.source, DEFAULT_METHOD, {}) is None  # no edit of that case
    with reference_video(case, "self", reference_edits=out) as video:
        assert video == edit  # taken, not made again


def test_a_source_rewritten_since_is_cleaned_again_even_where_a_resumed_job_kept_the_edit(removed, make_video):
    case, out = removed
    os.replace(make_video("other.mp4", frames=20, width=128), case.source)  # same path, other bytes
    assert remove_one(DEFAULT_METHOD, case, out)["skipped"]  # the job resumes: the old edit stays, so does its record
    assert reusable_edit(out, "c1", case.source, DEFAULT_METHOD, {}) is None
    with reference_video(case, "self", reference_edits=out) as video:
        assert video != os.path.join(out, "c1.mp4") and os.path.getsize(video) > 0  # made from the new source


def test_an_edit_without_its_record_is_not_reused_and_reuse_applies_to_self_only(removed):
    case, out = removed
    os.remove(record_path(out, "c1"))
    assert reusable_edit(out, "c1", case.source, DEFAULT_METHOD, {}) is None
    assert reference_source("self", None, out) == "self"
    for reference in ("none", "oracle"):
        with pytest.raises(ValueError):
            reference_source(reference, None, out)
