"""`RUN/report.html`: the loss curve, the run's settings, and the task's validation images."""

from __future__ import annotations

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from g2w.io.html_page import key_values, table, write_html  # noqa: E402


def loss_curve(history: list[dict], path: str) -> None:
    steps = [h["step"] for h in history]
    fig, ax = plt.subplots(figsize=(7, 3.2), dpi=100)
    ax.plot(steps, [h["loss"] for h in history], lw=1.2)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training loss")
    ax.set_yscale("log" if min(h["loss"] for h in history) > 0 else "linear")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_report(run_dir: str, summary: dict, history: list[dict], validation: list[dict]) -> str:
    """Write `report.html` (and `loss_curve.png`) into the local folder `run_dir`."""
    sections = [("Summary", key_values({k: v for k, v in summary.items() if not isinstance(v, dict | list)}))]
    if history:
        loss_curve(history, os.path.join(run_dir, "loss_curve.png"))
        sections.append(("Loss", "<img src='loss_curve.png'>"))
    if validation:
        columns = list(dict.fromkeys(k for row in validation for k in row))
        images = [c for c in columns if c.startswith("image")]
        sections.append(("Validation (before / after)", table(validation, columns, images)))
    sections.append(("Settings", key_values(summary.get("config", {}))))
    tail = history[-20:]
    sections.append(("Last logged steps", table(tail, list(tail[0]) if tail else [])))
    path = os.path.join(run_dir, "report.html")
    write_html(path, f"g2w training: {summary.get('task', '')}", sections)
    return path
