from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from g2w.io import storage
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


# --- the write side, on a real S3 API (moto) and on a local disk ------------------------------


def test_writes_lists_and_removes_on_s3(s3_bucket, tmp_path):
    base = storage.join(s3_bucket, "run", "clips")
    assert storage.list_files(base) == []  # a prefix nobody wrote yet is an empty folder
    storage.write_bytes(storage.join(base, "a.mp4"), b"aaaa")
    storage.write_json(storage.join(s3_bucket, "run", "summary.json"), {"kept": 2})
    local = tmp_path / "b.mp4"
    local.write_bytes(b"bb")
    storage.publish_file(str(local), storage.join(base, "b.mp4"))
    assert not local.exists()  # published means moved: the worker's disk is not left holding it
    assert storage.list_files(base, ".mp4") == [f"{base}/a.mp4", f"{base}/b.mp4"]
    assert storage.read_bytes(f"{base}/b.mp4") == b"bb" and storage.size(f"{base}/a.mp4") == 4
    assert storage.exists(f"{s3_bucket}/run/summary.json") and not storage.exists(f"{base}/c.mp4")
    storage.remove(f"{base}/a.mp4")
    storage.remove(f"{base}/a.mp4")  # already gone: still fine
    assert storage.list_files(base) == [f"{base}/b.mp4"]


def test_a_failed_write_publishes_nothing(s3_bucket, tmp_path):
    for dest in (f"{s3_bucket}/out/clip.mp4", str(tmp_path / "out" / "clip.mp4")):
        try:
            with storage.staged_file(dest) as tmp:
                assert tmp.endswith(".mp4")  # encoders pick the container from the extension
                open(tmp, "wb").write(b"half a clip")
                raise RuntimeError("encoder died")
        except RuntimeError:
            pass
        assert not storage.exists(dest)
        assert storage.list_files(storage.join(dest.rsplit("/", 1)[0])) == []  # no partial file either
    assert not any(p.name.startswith(".") for p in (tmp_path / "out").iterdir())


def test_staged_dir_uploads_a_report_folder(s3_bucket, tmp_path):
    with storage.staged_dir(f"{s3_bucket}/run") as out:
        staging = Path(out)
        (staging / "report").mkdir()
        (staging / "report" / "plot.png").write_bytes(b"png")
        (staging / "report.html").write_text("<html>")
    assert storage.list_files(f"{s3_bucket}/run") == [f"{s3_bucket}/run/report.html"]
    assert storage.read_bytes(f"{s3_bucket}/run/report/plot.png") == b"png"
    assert not staging.exists()  # the temporary folder is gone once uploaded
    with storage.staged_dir(str(tmp_path / "local")) as out:  # a local folder is written in place
        assert out == str(tmp_path / "local")


def test_parquet_round_trip_through_a_staged_file(s3_bucket):
    dest = f"{s3_bucket}/run/manifest.parquet"
    with storage.staged_file(dest) as tmp:
        pq.write_table(pa.table({"clip_id": ["a", "b"]}), tmp)
    assert pq.read_table(dest).column("clip_id").to_pylist() == ["a", "b"]  # pyarrow reads the URI itself


def test_remove_many_deletes_exactly_the_named_objects_on_s3(s3_bucket, tmp_path):
    names = [f"{s3_bucket}/clips/c{i:04d}.mp4" for i in range(120)]
    for name in names:
        storage.write_bytes(name, b"clip")
    local = [_touch(tmp_path / f"l{i}.mp4") for i in range(3)]
    gone = names[:100] + [f"{s3_bucket}/clips/never-written.mp4"] + local + [str(tmp_path / "missing.mp4")]
    assert storage.remove_many(gone) == len(gone)
    assert storage.list_files(f"{s3_bucket}/clips") == names[100:]
    assert not any(Path(p).exists() for p in local)
    assert storage.remove_many([]) == 0


def test_remove_many_resolves_one_filesystem_per_bucket_and_overlaps_deletes(monkeypatch):
    import threading
    import time

    state = {"resolved": [], "in_flight": 0, "most": 0, "deleted": []}
    lock = threading.Lock()

    class SlowStore:  # a bucket whose every delete is one slow round trip
        def delete_file(self, path):
            with lock:
                state["in_flight"] += 1
                state["most"] = max(state["most"], state["in_flight"])
            time.sleep(0.02)
            with lock:
                state["in_flight"] -= 1
                state["deleted"].append(path)

    def resolve(uri):
        state["resolved"].append(uri)
        return SlowStore(), uri.split("://", 1)[1]

    monkeypatch.setattr(storage, "_fs", resolve)
    paths = [f"s3://a/clips/{i}.mp4" for i in range(64)] + [f"s3://b/x/{i}.mp4" for i in range(8)]
    storage.remove_many(paths, concurrency=16)
    assert state["resolved"] == ["s3://a", "s3://b"]
    assert sorted(state["deleted"]) == sorted(p.split("://", 1)[1] for p in paths)
    assert state["most"] > 1
