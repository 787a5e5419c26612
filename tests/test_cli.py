import json
import subprocess
import sys


def g2w(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "g2w.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_probe_prints_one_json_line_per_file(make_video, tmp_path):
    bad = tmp_path / "zero.mp4"
    bad.write_bytes(b"")
    done = g2w("probe", make_video(frames=8), str(bad))
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in rows] == ["ok", "error"]
    assert rows[0]["frame_count"] == 8 and rows[1]["reason"] == "empty_file"
    assert done.returncode == 1


def test_probe_exit_code_is_zero_when_all_are_good(make_video):
    assert g2w("probe", make_video(frames=3)).returncode == 0


def test_sample_videos_writes_videos_and_sidecars(tmp_path):
    done = g2w("sample-videos", str(tmp_path), "--count", "2", "--seed", "3", "--duration-s", "2")
    assert done.returncode == 0, done.stderr
    paths = done.stdout.split()
    assert len(paths) == 2
    for path in paths:
        truth = json.loads(open(path[:-4] + ".json").read())
        row = json.loads(g2w("probe", path).stdout)
        assert row["frame_count"] == truth["frame_count"] and row["width"] == truth["width"]
        assert truth["spec"]["seed"] == 3


def test_bad_arguments_are_refused():
    assert g2w("sample-videos", "out", "--count", "0").returncode == 2


def test_a_bad_mask_rule_list_is_refused_before_any_work(tmp_path):
    bad = g2w(
        "remove",
        "--method",
        "propagate",
        "--cases",
        str(tmp_path),
        "--output",
        str(tmp_path / "o"),
        "--mask-rules",
        "centre_mark,crosshair",
    )
    assert bad.returncode == 2 and "unknown mask rule 'crosshair'" in bad.stderr
    wrong = g2w(
        "remove",
        "--method",
        "identity",
        "--cases",
        str(tmp_path),
        "--output",
        str(tmp_path / "o"),
        "--mask-rules",
        "none",
    )
    assert wrong.returncode == 2 and "--mask-rules applies to" in wrong.stderr
    assert not (tmp_path / "o").exists()
