"""The minute-scale dataset's report page: per segment, a contact strip across its length and,
once `g2w trajectory` has run, a plot of its camera trajectory; then the rejected stretches
with their reasons and the distribution of segment lengths.

A strip samples the standardized clip (or the source, for rejected stretches) at evenly spaced
times, so a reader sees at a glance whether a segment stays in one place from start to end.
"""

from __future__ import annotations

import html
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from g2w.io import storage  # noqa: E402
from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html  # noqa: E402
from g2w.rotations import yaw_pitch_roll_deg  # noqa: E402
from g2w.trajectory.table import rotations_of  # noqa: E402
from g2w.video.decode import iter_video_frames  # noqa: E402
from g2w.video.errors import VideoError  # noqa: E402

STRIP_FRAMES = 8
MAX_SEGMENTS_SHOWN = 60


def strip_frames(path: str, start_s: float, end_s: float, count: int = STRIP_FRAMES) -> list[tuple[float, np.ndarray]]:
    """(time, RGB thumbnail source frame) at `count` evenly spaced times of [start_s, end_s), from
    one streaming decode (works for local files and bucket URIs alike)."""
    times = start_s + (np.arange(count) + 0.5) * (end_s - start_s) / count
    out, k = [], 0
    try:
        for _, t, frame in iter_video_frames(path, max(0.0, float(times[0]) - 0.05), end_s + 0.05, threads=1):
            while k < count and t + 1e-3 >= times[k]:
                out.append((float(times[k]), frame.to_ndarray(format="rgb24", width=320, height=180)))
                k += 1
            if k == count:
                break
    except VideoError:
        pass
    return out


def plot_trajectory(path: str, trajectory: pa.Table, title: str) -> None:
    """Yaw, pitch and roll over time (degrees, unwrapped) and the top-down path of the
    translation direction integrated at unit speed, with rejected frames' confidence shown."""
    t = trajectory.column("time_s").to_numpy()
    ypr = yaw_pitch_roll_deg(rotations_of(trajectory))
    steps = np.stack([trajectory.column(c).to_numpy() for c in ("tx", "ty", "tz")], axis=1)
    pos = np.cumsum(steps, axis=0)
    conf = trajectory.column("confidence").to_numpy()
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 2.8))
    for k, name in enumerate(("yaw", "pitch", "roll")):
        a.plot(t, ypr[:, k], label=name, lw=1)
    a.fill_between(t, ypr.min(), ypr.max(), where=conf < 0.5, color="#e74c3c", alpha=0.15, label="low confidence")
    a.set_xlabel("s")
    a.set_ylabel("deg")
    a.legend(fontsize=7)
    b.plot(pos[:, 0], pos[:, 2], lw=1, color="#2c7fb8")
    b.set_aspect("equal", adjustable="datalim")
    b.set_title("path (x, z), unit speed", fontsize=9)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _histogram(path: str, durations: np.ndarray) -> None:
    fig, ax = plt.subplots(figsize=(6, 2.6))
    ax.hist(durations, bins=20, color="#4a7bb7")
    ax.set_xlabel("segment length (s)")
    ax.set_ylabel("segments")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _segment_section(out: str, row: dict, clip_root: str, k: int) -> str:
    clip = row.get("clip_path")
    if clip:
        path, start, end = storage.join(clip_root, clip), 0.0, float(row["duration_s"])
    else:
        path, start, end = row["source"], float(row["start_s"]), float(row["end_s"])
    parts = []
    frames = strip_frames(path, start, end)
    if frames:
        name = f"strip_{k:04d}.png"
        save_png(
            os.path.join(out, "long_report", name),
            contact_sheet([f for _, f in frames], [f"{t:.1f} s" for t, _ in frames], len(frames), 160),
        )
        parts.append(f'<img src="long_report/{name}" style="max-width:100%">')
    trajectory = row.get("trajectory_path")
    if trajectory and storage.exists(storage.join(clip_root, trajectory)):
        name = f"trajectory_{k:04d}.png"
        with storage.open_binary(storage.join(clip_root, trajectory)) as f:
            plot_trajectory(
                os.path.join(out, "long_report", name),
                pq.read_table(f),
                f"trajectory: {row.get('trajectory_status', '')} {row.get('trajectory_reason', '')}",
            )
        parts.append(f'<img src="long_report/{name}">')
    facts = {
        c: row[c]
        for c in (
            "segment_id",
            "source",
            "start_s",
            "end_s",
            "hud_status",
            "start_boundary",
            "end_boundary",
            "trajectory_status",
            "trajectory_reason",
            "caption_status",
            "caption_reason",
        )
        if c in row and row[c] not in (None, "")
    }
    return key_values(facts) + "".join(parts)


def write_segments_report(
    out: str, segments: pa.Table, summary: dict, clip_root: str, name: str = "report.html"
) -> None:
    """`out/<name>` with its pictures in `out/long_report/` (`out` is local; clips may be URIs)."""
    os.makedirs(os.path.join(out, "long_report"), exist_ok=True)
    rows = segments.to_pylist()
    kept = [r for r in rows if r["status"] == "kept"]
    sections = [
        (
            "summary",
            key_values(
                {
                    k: json.dumps(v) if isinstance(v, (dict, list)) else v
                    for k, v in summary.items()
                    if k not in ("config", "segments_config")
                }
            ),
        )
    ]
    if kept:
        _histogram(os.path.join(out, "long_report", "lengths.png"), np.array([r["duration_s"] for r in kept]))
        sections.append(("segment lengths", '<img src="long_report/lengths.png">'))
    for k, row in enumerate(kept[:MAX_SEGMENTS_SHOWN]):
        sections.append(
            (
                f"segment {html.escape(row['segment_id'])} ({row['duration_s']:.1f} s)",
                _segment_section(out, row, clip_root, k),
            )
        )
    if len(kept) > MAX_SEGMENTS_SHOWN:
        sections.append(("more", f"<p>{len(kept) - MAX_SEGMENTS_SHOWN} more kept segments in the manifest</p>"))
    others = [r for r in rows if r["status"] != "kept"]
    if others:
        sections.append(
            ("not kept", table(others, ["segment_id", "source", "start_s", "end_s", "status", "reason", "error"]))
        )
    write_html(os.path.join(out, name), "minute-scale segments", sections)
