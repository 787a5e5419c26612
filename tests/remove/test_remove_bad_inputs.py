"""The default removal as `g2w remove` runs it on each case: bad inputs (corrupt, truncated, 1x1)
become error rows with a reason, never a crash; odd but valid ones (portrait, 60 fps) come out at
their own size, rate and length."""

import pytest

from g2w.cases.case import Case
from g2w.jobs.remove import remove_one
from g2w.remove import DEFAULT_METHOD
from g2w.video import probe
from tests.bad_videos import bad_and_odd_videos


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    import numpy as np

    from g2w.video import VideoWriter

    folder = tmp_path_factory.mktemp("remove_bad")
    good = str(folder / "good.mp4")
    with VideoWriter(good, 160, 96, 30, preset="ultrafast") as w:
        for i in range(40):
            w.write(np.full((96, 160, 3), 4 * i, np.uint8))
    videos = bad_and_odd_videos(str(folder / "odd"), good)
    out = str(folder / "out")
    cases = {name: Case(name, "wild", path, str(folder / "none.json")) for name, path in videos.items()}
    return {name: (remove_one(DEFAULT_METHOD, case, out), case) for name, case in cases.items()}


def test_a_corrupt_source_is_an_error_row_with_its_reason(rows):
    row, _ = rows["corrupt"]
    assert row["status"] == "error" and row["reason"].startswith("source_") and row["message"]


def test_a_truncated_source_is_either_removed_or_an_error_with_a_reason(rows):
    row, _ = rows["truncated"]
    assert row["status"] == "ok" or (row["status"] == "error" and row["reason"])


def test_a_1x1_source_is_an_error_row_not_a_crash(rows):
    row, _ = rows["tiny"]
    assert (row["status"], row["reason"]) == ("error", "source_too_small")


@pytest.mark.parametrize("name", ["portrait", "fast"])
def test_odd_but_valid_sources_keep_their_size_rate_and_length(rows, name):
    row, case = rows[name]
    assert row["status"] == "ok", row
    source, edit = probe(case.source), probe(row["path"])
    assert (edit.width, edit.height, edit.frame_count) == (source.width, source.height, source.frame_count)
    assert abs(edit.fps - source.fps) < 0.01
