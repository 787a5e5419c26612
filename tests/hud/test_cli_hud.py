"""The HUD subcommands of the g2w command: bootstrap and extract write a library and its report."""

import json
import subprocess
import sys

import pyarrow.parquet as pq


def g2w(*args):
    return subprocess.run([sys.executable, "-m", "g2w.cli", *args], capture_output=True, text=True)


def test_assets_bootstrap_writes_library_summary_and_report(tmp_path):
    done = g2w("assets", "bootstrap", "--output", str(tmp_path), "--per-label", "1", "--seed", "4")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["added_by_label"]["map_radar"] == 1 and summary["library_summary"]["assets"] >= 21
    assert pq.read_table(tmp_path / "assets.parquet").num_rows == summary["library_summary"]["assets"]
    assert (tmp_path / "library_sheet.png").stat().st_size > 5000
    assert "library_sheet.png" in (tmp_path / "report.html").read_text()


def test_assets_extract_reports_bad_sources_without_crashing(tmp_path):
    ann = tmp_path / "ann.json"
    ann.write_text(
        json.dumps([{"video": "nowhere.mp4", "time": 0, "boxes": [{"label": "map_radar", "box": [0, 0, 9, 9]}]}])
    )
    done = g2w("assets", "extract", str(ann), "--output", str(tmp_path / "lib"))
    assert done.returncode == 1
    summary = json.loads(done.stdout)
    assert summary["errors"][0]["reason"] == "missing_file"
    assert pq.read_table(tmp_path / "lib" / "assets.parquet").num_rows == 0
