"""`g2w hud-segmenter train`: train the UI segmenter on synthesized pairs, through Ray Train.

Writes into RUN: `model/` (hud_segmenter.json + .safetensors, loadable by `Segmenter` and
`g2w detect --checkpoint`), `metrics.json` (validation: mask IoU, pixel F1, per-label recall,
box AP50 per label, on held-out samples), `history.json` (loss, learning rate and samples/s as
trained), `loss.png`, `overlays.png` (held-out frames: truth and prediction side by side) and
`report.html`. Rerunning with the same RUN resumes from the last checkpoint.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict

import numpy as np
import torch

from g2w.models.hud_segmenter import HudSegmenter, HudSegmenterConfig
from g2w.report import contact_sheet, key_values, save_png, table, write_html
from g2w.segment.data import cached_sample, frame_input
from g2w.segment.overlay import overlay
from g2w.segment.task import SegmenterTask, predict_frame, sample_dirs, write_metrics

OVERLAY_SAMPLES = 6


def run_train_segmenter(data: list[str], val: list[str], output: str, steps: int = 2000, seed: int = 0,
                        batch_size: int = 16, crop: int = 160, eval_every: int = 250,
                        model: HudSegmenterConfig | None = None, workers: int = 1) -> dict:
    from g2w.runtime.fit import FitConfig, fit

    output = os.path.abspath(output)
    os.makedirs(output, exist_ok=True)
    task = SegmenterTask(data=[os.path.abspath(d) for d in data], val=[os.path.abspath(v) for v in val],
                         cache_dir=os.path.join(output, "cache"), model=asdict(model or HudSegmenterConfig()),
                         crop=crop, batch_size=batch_size, seed=seed)
    train_n, val_n = len(sample_dirs(task.data)), len(sample_dirs(task.val))
    if not train_n or not val_n:
        raise ValueError(f"need synthesized samples for training ({train_n} found) and validation ({val_n})")
    print(f"hud-segmenter train: {train_n} training samples, {val_n} held-out -> {output}", flush=True)
    start = time.perf_counter()
    cfg = FitConfig(steps=steps, eval_every=min(eval_every, steps), workers=workers, name="hud_segmenter")
    checkpoint, history = fit(task, cfg, output)
    seconds = time.perf_counter() - start
    model_dir = os.path.join(output, "model")
    os.makedirs(model_dir, exist_ok=True)
    for name in ("hud_segmenter.json", "hud_segmenter.safetensors"):
        shutil.copy(os.path.join(checkpoint, name), model_dir)
    net = HudSegmenter.from_pretrained(model_dir)
    task.load()
    metrics = {"validation": task.validate(net), "train_samples": train_n, "val_samples": val_n, "steps": steps,
               "seed": seed, "batch_size": batch_size, "crop": crop, "train_seconds": round(seconds, 1),
               "data": task.data, "val": task.val, "model": task.model,
               "parameters": sum(p.numel() for p in net.parameters())}
    write_metrics(output, metrics)
    with open(os.path.join(output, "history.json"), "w") as f:
        json.dump(history, f, indent=1)
    report = _report(output, task, net, history, metrics)
    print(json.dumps(metrics["validation"], indent=1), flush=True)
    print(f"model:   {model_dir}\nmetrics: {os.path.join(output, 'metrics.json')}\nreport:  {report}", flush=True)
    return metrics


def _loss_png(output: str, history: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    steps = [h["step"] for h in history]
    ax.plot(steps, [h["loss"] for h in history], label="training loss")
    evals = [h for h in history if h.get("val_mask_iou") is not None]
    if evals:
        ax2 = ax.twinx()
        ax2.plot([h["step"] for h in evals], [h["val_mask_iou"] for h in evals], "o-", color="tab:green",
                 label="held-out mask IoU")
        ax2.set_ylim(0, 1)
        ax2.legend(loc="upper right")
    ax.set_xlabel("step")
    ax.legend(loc="upper left")
    fig.tight_layout()
    path = os.path.join(output, "loss.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return "loss.png"


@torch.inference_mode()
def _overlays(output: str, task: SegmenterTask, net: HudSegmenter) -> str:
    images, labels = [], []
    for d in sample_dirs(task.val)[:OVERLAY_SAMPLES]:
        sample = cached_sample(d, task.config, task.cache_dir)
        t = len(sample["frames"]) // 2
        pred = predict_frame(net, frame_input(sample, t, task.config), t)
        frame = sample["frames"][t]
        images += [overlay(frame, sample["ui"][t]), overlay(frame, (pred.ui >= 0.5).astype(np.uint8))]
        labels += [f"{os.path.basename(d)[:28]} truth", "prediction"]
    save_png(os.path.join(output, "overlays.png"), contact_sheet(images, labels, 2, thumb_width=360))
    return "overlays.png"


def _report(output: str, task: SegmenterTask, net: HudSegmenter, history: list[dict], metrics: dict) -> str:
    val = metrics["validation"]
    per_label = [{"label": k, "pixel_recall": v, "label_accuracy": val["label_accuracy"].get(k),
                  "box_ap50": val["box_ap50"].get(k)} for k, v in val["label_recall"].items()]
    path = os.path.join(output, "report.html")
    write_html(path, "g2w hud-segmenter train", [
        ("Held-out validation", key_values({k: v for k, v in val.items() if not isinstance(v, dict)})),
        ("Run", key_values({k: v for k, v in metrics.items() if not isinstance(v, (dict, list))})),
        ("Loss and held-out IoU", f"<img src='{_loss_png(output, history)}'>"),
        ("Held-out frames: truth (left) and prediction (right)",
         f"<img src='{_overlays(output, task, net)}' style='max-width:100%'>"),
        ("Per label", table(per_label, ["label", "pixel_recall", "label_accuracy", "box_ap50"])),
    ])
    return path
