import pyarrow as pa
import pyarrow.parquet as pq

from g2w import storage
from g2w.video import probe


def _touch(path, data=b"x"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return str(path)


def test_expand_directories_globs_and_lists(tmp_path):
    a = _touch(tmp_path / "d" / "a.mp4")
    b = _touch(tmp_path / "d" / "sub" / "b.MKV")
    _touch(tmp_path / "d" / "notes.txt")
    c = _touch(tmp_path / "e" / "c.webm")
    listing = tmp_path / "list.txt"
    listing.write_text(f"# sources\n{c}\n\n{a}\n")
    table = tmp_path / "list.parquet"
    pq.write_table(pa.table({"path": [b]}), table)
    assert storage.expand_inputs([str(tmp_path / "d")]) == sorted([a, b])
    assert storage.expand_inputs([str(tmp_path / "*" / "*.webm")]) == [c]
    assert storage.expand_inputs([str(listing), str(table)]) == sorted([a, b, c])


def test_named_files_are_kept_even_if_missing_or_odd(tmp_path):
    odd = _touch(tmp_path / "clip.txt.bin")
    missing = str(tmp_path / "gone.mp4")
    assert storage.expand_inputs([missing, odd, missing]) == sorted([missing, odd])


def test_file_uris_go_through_the_same_filesystem_layer(make_video, tmp_path):
    path = make_video(frames=12)
    uri = "file://" + path
    assert storage.exists(uri) and storage.size(uri) == storage.size(path)
    assert storage.read_range(uri, 4, 4) == b"ftyp"
    assert probe(uri).frame_count == 12  # PyAV reads through the pyarrow file object
    assert storage.expand_inputs(["file://" + str(tmp_path)]) == [uri]
