import shutil

from g2w.video.sources import ProbeSources, probe_row, source_id


def test_a_good_video_row(make_video):
    row = probe_row(make_video(frames=12, fps=24))
    assert row["status"] == "ok" and row["reason"] == ""
    assert (row["width"], row["height"], row["frame_count"], row["fps"]) == (160, 96, 12, 24.0)
    assert len(row["source_id"]) == 16


def test_bad_inputs_become_error_rows(tmp_path):
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    text = tmp_path / "readme.mp4"
    text.write_text("hello")
    rows = {r["path"]: r for r in (probe_row(str(p)) for p in (empty, text, tmp_path / "gone.mp4"))}
    assert [r["status"] for r in rows.values()] == ["error"] * 3
    assert rows[str(empty)]["reason"] == "empty_file"
    assert rows[str(text)]["reason"] == "not_media" and rows[str(text)]["source_id"]
    assert rows[str(tmp_path / "gone.mp4")]["reason"] == "missing_file"
    assert all(r["error"] for r in rows.values())


def test_source_id_follows_content_not_name(make_video, tmp_path):
    a = make_video("a.mp4", frames=10)
    b = make_video("b.mp4", frames=11)
    moved = tmp_path / "sub" / "renamed.mp4"
    moved.parent.mkdir()
    shutil.copy(a, moved)
    assert source_id(a) == source_id(str(moved))
    assert source_id(a) != source_id(b)


def test_probe_step_keeps_one_row_per_path(make_video, tmp_path):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 100)
    batch = ProbeSources()({"path": [make_video(frames=5), str(bad)]})
    assert list(batch["status"]) == ["ok", "error"]
    assert list(batch["frame_count"]) == [5, 0]
