"""The curation report: what was kept, what was rejected and why, in pictures.

`report.html` (next to the manifest) shows the summary, which embedder was used (with a warning
when CLIP was random or absent), plots (cluster sizes, rejection reasons, the quality
measurements against their thresholds) and contact sheets: kept clips grouped by cluster, and
examples of each rejection reason.
"""

from __future__ import annotations

import html
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.compute as pc  # noqa: E402

from g2w.curate.config import CurateConfig  # noqa: E402
from g2w.io import storage  # noqa: E402
from g2w.io.html_page import contact_sheet, key_values, save_png, table, write_html  # noqa: E402
from g2w.video.decode import FrameReader, iter_video_frames  # noqa: E402
from g2w.video.errors import VideoError  # noqa: E402

_SHEET_CLUSTERS, _PER_CLUSTER, _PER_REASON = 12, 6, 6


def _plot_counts(path: str, counts: dict, title: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 3.2))
    names = sorted(counts, key=lambda k: -counts[k])
    ax.bar(names, [counts[n] for n in names], color="#4a7bb7")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=40)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _plot_measures(path: str, measured: pa.Table, cfg: CurateConfig) -> None:
    q = cfg.quality
    panels = [
        ("luma_mean", (q.dark_luma, q.bright_luma)),
        ("sharpness", (q.min_sharpness,)),
        ("frozen_fraction", (q.max_frozen_fraction,)),
        ("shake", (q.max_shake,)),
        ("border_fraction", (q.max_border_fraction,)),
        ("ui_coverage", (q.max_ui_coverage,)),
        ("motion", ()),
        ("cut_score", (1.0,)),
    ]
    fig, axes = plt.subplots(2, 4, figsize=(13, 5))
    for ax, (name, lines) in zip(axes.ravel(), panels):
        values = measured.column(name).to_numpy(zero_copy_only=False).astype(float)
        if name == "sharpness":
            values = np.log10(values + 1)
            lines = tuple(np.log10(v + 1) for v in lines)
            name = "log10(sharpness + 1)"
        ax.hist(values, bins=30, color="#6a9f58")
        for v in lines:
            ax.axvline(v, color="#c0392b", linestyle="--")
        ax.set_title(name, fontsize=10)
    fig.suptitle("window measurements (red: thresholds)")
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def _central_frame(path: str, t: float):
    """The frame on screen at `t`; a clip in a bucket is streamed (decord reads local files only)."""
    try:
        if storage.is_uri(path):
            return next(iter_video_frames(path, t))[2].to_ndarray(format="rgb24")
        return FrameReader(path).read_at([t])[0]
    except (VideoError, IndexError, RuntimeError, StopIteration):
        return None


def _sheet(out: str, name: str, picks: list[tuple[str, float, str]], columns: int) -> str | None:
    images, labels = [], []
    for path, t, label in picks:
        frame = _central_frame(path, t)
        if frame is not None:
            images.append(frame)
            labels.append(label)
    if not images:
        return None
    save_png(os.path.join(out, name), contact_sheet(images, labels, columns, thumb_width=200))
    return name


def _counts(values: pa.ChunkedArray) -> dict:
    return {
        v["values"]: v["counts"]
        for v in pc.value_counts(values.combine_chunks()).to_pylist()
        if v["values"] is not None
    }


def write_report(out: str, manifest: pa.Table, summary: dict, cfg: CurateConfig, clip_root: str | None = None) -> str:
    """Write report.html and its PNGs into the local folder `out`; returns the page's path. Reads
    the manifest columnar: only the rows it shows (kept clips, examples, the first 500) become
    Python rows. Clip paths are relative to `clip_root` (the run's output; `out` by default)."""
    clip_root = clip_root or out
    windows = manifest.filter(pc.greater_equal(manifest.column("window_index"), 0))
    status = windows.column("status")
    figures = os.path.join(out, "report")
    os.makedirs(figures, exist_ok=True)
    sections = []
    model = summary["embedding_model"]
    if model["warning"]:
        colour = "#b00" if model["randomly_initialized"] else "#a60"
        sections.append(("Embedder", f"<p style='color:{colour};font-weight:bold'>{html.escape(model['warning'])}</p>"))
    sections.append(
        (
            "Summary",
            key_values(
                {
                    "windows": summary["counts"]["windows"],
                    "kept": summary["counts"]["kept"],
                    "rejected": summary["counts"]["rejected"],
                    "errors": summary["counts"]["error"],
                    f"{model['clusters']} (K)": summary["k"],
                    "embedder": (
                        f"CLIP {model['model']} / {model['pretrained'] or 'random init'} on {model['device']}"
                        if model["embedder"] == "clip"
                        else model["model"]
                    ),
                    "dedup threshold (cosine)": model["dedup_threshold"],
                    "UI screen": summary["ui_screen"]["used"]
                    + (
                        f" ({summary['ui_screen']['fallback_reason']})"
                        if summary["ui_screen"]["fallback_reason"]
                        else ""
                    ),
                    "timings (s)": summary["timings_s"],
                    "throughput": summary["throughput"],
                }
            ),
        )
    )

    clusters = _counts(windows.column("cluster"))
    if clusters:
        _plot_counts(
            os.path.join(figures, "clusters.png"),
            {str(k): v for k, v in clusters.items()},
            f"windows per {model['clusters'][:-1]}",
        )
    reasons = _counts(windows.filter(pc.not_equal(status, "kept")).column("reason"))
    if reasons:
        _plot_counts(os.path.join(figures, "reasons.png"), dict(reasons), "rejections and errors by reason")
    _plot_measures(os.path.join(figures, "measures.png"), windows.filter(pc.not_equal(status, "error")), cfg)
    images = "".join(
        f"<img src='report/{n}'>"
        for n in ("clusters.png", "reasons.png", "measures.png")
        if os.path.exists(os.path.join(figures, n))
    )
    sections.append(("Plots", images))

    # The largest clusters of kept windows, a few windows each: only those rows become Python.
    kept = windows.filter(pc.equal(status, "kept")).select(["clip_id", "cluster", "clip_path"])
    sizes = pc.value_counts(kept.column("cluster").combine_chunks())
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i]["counts"].as_py())  # stable: first seen first
    picks = []
    for i in order[:_SHEET_CLUSTERS]:
        cluster = sizes[i]["values"].as_py()
        for r in kept.filter(pc.equal(kept.column("cluster"), cluster)).slice(0, _PER_CLUSTER).to_pylist():
            picks.append((storage.join(clip_root, r["clip_path"]), 2.5, f"c{cluster} {r['clip_id'][-12:]}"))
    kept_sheet = _sheet(figures, "kept_by_cluster.png", picks, _PER_CLUSTER)
    sections.append(
        (
            f"Kept clips by {model['clusters'][:-1]} (centre frames)",
            f"<img src='report/{kept_sheet}' style='max-width:100%'>" if kept_sheet else "<p>none kept</p>",
        )
    )

    examples = []
    rejected = windows.filter(pc.equal(status, "rejected"))
    for reason in sorted(reasons):
        chosen = rejected.filter(pc.equal(rejected.column("reason"), reason)).slice(0, _PER_REASON).to_pylist()
        examples += [
            (
                r["source"],
                (r["start_s"] + r["end_s"]) / 2,
                f"{reason} {os.path.splitext(os.path.basename(r['source']))[0][-6:]}@{r['start_s']:.0f}s",
            )
            for r in chosen
        ]
    rejected_sheet = _sheet(figures, "rejected_examples.png", examples, _PER_REASON)
    if rejected_sheet:
        sections.append(
            (
                "Rejected examples (source frames at the window centre)",
                f"<img src='report/{rejected_sheet}' style='max-width:100%'>",
            )
        )

    columns = [
        "clip_id",
        "status",
        "reason",
        "luma_mean",
        "sharpness",
        "motion",
        "frozen_fraction",
        "shake",
        "border_fraction",
        "ui_coverage",
        "cut_count",
        "cluster",
        "dup_of",
    ]
    shown = [
        {c: (round(r[c], 3) if isinstance(r[c], float) else r[c]) for c in columns}
        for r in windows.slice(0, 500).select(columns).to_pylist()
    ]
    sections.append(
        (f"Windows (first {len(shown)} of {windows.num_rows}; all in manifest.parquet)", table(shown, columns))
    )
    path = os.path.join(out, "report.html")
    write_html(path, "g2w curation report", sections)
    return path
