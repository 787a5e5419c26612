"""One exit status for every batch job: a run fails only when nothing came out of it."""

from g2w.jobs.summary import exit_status


def test_some_ok_items_make_a_run_succeed_even_beside_failures():
    assert exit_status({"ok": 1, "error": 3}) == 0
    assert exit_status({"ok": 2, "error": 0}) == 0


def test_a_run_with_no_ok_item_fails_whether_all_failed_or_none_was_given():
    assert exit_status({"ok": 0, "error": 2}) == 1
    assert exit_status({"ok": 0, "error": 0}) == 1
