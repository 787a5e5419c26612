"""`g2w hud-segmenter train`: train the UI segmenter on synthesized and captured pairs, through the shared
training harness (`g2w.runtime.train.run_fit`, on Ray Train).

Writes into RUN: `model/` (hud_segmenter.json + .safetensors, loadable by `Segmenter` and
`g2w detect --checkpoint`), `metrics.json` (validation: mask IoU, pixel F1, per-label recall,
box AP50 per label, on held-out pairs, overall and per source: synthesized or `real:<game>`), `history.json` (loss, learning rate and samples/s per
step, from the harness), `loss.png`, `overlays.png` (held-out frames: truth and prediction side
by side) and `report.html`; the harness's own files (`weights.safetensors`, `summary.json`,
`loss_curve.png`, `validation/`, Ray Train checkpoints `checkpoint_*`) are there too.
Rerunning with the same RUN resumes from the last checkpoint.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from dataclasses import asdict, replace

from g2w.io.html_page import key_values, table, write_html
from g2w.jobs.options import RefinerTrainOptions, SegmenterTrainOptions
from g2w.models.hud_segmenter import (
    CONFIG_NAME,
    WEIGHTS_NAME,
    HudSegmenter,
    HudSegmenterConfig,
)
from g2w.segment.task import SegmenterTask, sample_dirs, write_metrics

log = logging.getLogger(__name__)

WARMUP_STEPS = 50
WEIGHT_DECAY = 1e-4
LOG_EVERY = 25


def run_train_segmenter(options: SegmenterTrainOptions) -> dict:
    """Train from random weights, or fine-tune from `options.init` (a segmenter folder, whose config
    is the model's); held-out validation runs once, at the end. The loss terms the options add
    (element, static-world, anchored negatives) are off by default, as for the shipped checkpoint."""
    from g2w.runtime.train import run_fit
    from g2w.train import FitConfig

    o = options
    if not 0.0 <= o.anchored_negatives <= 1.0:
        raise ValueError(f"--anchored-negatives {o.anchored_negatives} is not a share between 0 and 1")
    if o.batch_size % o.num_workers:
        raise ValueError(f"--batch-size {o.batch_size} is not a multiple of the {o.num_workers} workers")
    output = os.path.abspath(o.output)
    init, model = None, HudSegmenterConfig()
    if o.init is not None:
        init = os.path.abspath(o.init)
        if not os.path.isfile(os.path.join(init, WEIGHTS_NAME)) or not os.path.isfile(os.path.join(init, CONFIG_NAME)):
            raise ValueError(f"--init {init}: no {CONFIG_NAME} and {WEIGHTS_NAME} there")
        with open(os.path.join(init, CONFIG_NAME)) as f:
            model = HudSegmenterConfig.from_dict(json.load(f))
    if o.widths is not None:
        if init is not None:
            raise ValueError("--widths and --init: a warm start keeps the checkpoint's widths")
        model = replace(model, widths=tuple(o.widths))
    if o.text_channel:
        model = replace(model, text_channel=True)
    os.makedirs(output, exist_ok=True)
    task = SegmenterTask(
        data=[os.path.abspath(d) for d in o.data],
        val=[os.path.abspath(v) for v in o.val],
        cache_dir=os.path.abspath(o.cache) if o.cache else os.path.join(output, "cache"),
        model=asdict(model),
        crop=o.crop,
        seed=o.seed,
        init=init,
        element_weight=o.element_weight,
        static_world_weight=o.static_world_weight,
        anchored_negatives=o.anchored_negatives,
    )
    if o.lr is not None:
        task = replace(task, lr=o.lr)
    train_n, val_n = len(sample_dirs(task.data)), len(sample_dirs(task.val))
    if not train_n or not val_n:
        raise ValueError(f"need synthesized samples for training ({train_n} found) and validation ({val_n})")
    log.info(f"hud-segmenter train: {train_n} training samples, {val_n} held-out -> {output}")
    start = time.perf_counter()
    cfg = FitConfig(
        output=output,
        steps=o.steps,
        global_batch=o.batch_size,
        micro_batch=o.batch_size // o.num_workers,
        lr=task.lr,
        weight_decay=WEIGHT_DECAY,
        warmup_steps=min(WARMUP_STEPS, o.steps),
        grad_clip=0.0,
        lr_schedule=o.lr_schedule,
        num_workers=o.num_workers,
        checkpoint_every=min(o.eval_every, o.steps),
        log_every=LOG_EVERY,
        seed=o.seed,
    )
    summary = run_fit(task, cfg)
    seconds = time.perf_counter() - start
    model_dir = os.path.join(output, "model")
    os.makedirs(model_dir, exist_ok=True)
    shutil.copy(os.path.join(output, "weights.safetensors"), os.path.join(model_dir, WEIGHTS_NAME))
    with open(os.path.join(model_dir, CONFIG_NAME), "w") as f:
        json.dump(task.model, f, indent=1)
    net = HudSegmenter.from_pretrained(model_dir)  # the saved model loads as the shipped one does
    with open(os.path.join(output, "validation", "metrics.json")) as f:
        validation = json.load(f)
    shutil.copy(os.path.join(output, "validation", "overlays.png"), os.path.join(output, "overlays.png"))
    metrics = {
        "validation": validation,
        "train_samples": train_n,
        "val_samples": val_n,
        "steps": o.steps,
        "seed": o.seed,
        "batch_size": o.batch_size,
        "crop": o.crop,
        "lr_schedule": o.lr_schedule,
        "lr": task.lr,
        "init": init,
        "element_weight": o.element_weight,
        "static_world_weight": o.static_world_weight,
        "anchored_negatives": o.anchored_negatives,
        "train_seconds": round(seconds, 1),
        "mean_samples_per_s": summary.get("mean_samples_per_s"),
        "data": task.data,
        "val": task.val,
        "model": task.model,
        "parameters": sum(p.numel() for p in net.parameters()),
    }
    write_metrics(output, metrics)
    with open(os.path.join(output, "history.json")) as f:
        history = json.load(f)
    report = _report(output, history, metrics)
    log.debug(json.dumps(metrics["validation"], indent=1))
    log.info(f"model:   {model_dir}\nmetrics: {os.path.join(output, 'metrics.json')}\nreport:  {report}")
    return metrics


def _loss_png(output: str, history: list[dict]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot([h["step"] for h in history], [h["loss"] for h in history], label="training loss")
    ax.set_xlabel("step")
    ax.legend(loc="upper left")
    fig.tight_layout()
    fig.savefig(os.path.join(output, "loss.png"), dpi=100)
    plt.close(fig)
    return "loss.png"


def _report(output: str, history: list[dict], metrics: dict) -> str:
    """`report.html` of the segmenter run (replaces the harness's generic one, which it extends)."""
    val = metrics["validation"]
    per_label = [
        {
            "label": k,
            "pixel_recall": v,
            "label_accuracy": val["label_accuracy"].get(k),
            "box_ap50": val["box_ap50"].get(k),
        }
        for k, v in val["label_recall"].items()
    ]
    path = os.path.join(output, "report.html")
    write_html(
        path,
        "g2w hud-segmenter train",
        [
            ("Held-out validation", key_values({k: v for k, v in val.items() if not isinstance(v, dict)})),
            (
                "Held-out validation by source",
                table(
                    [
                        {"source": k, **{m: v.get(m) for m in ("samples", "mask_iou", "pixel_f1", "box_map50")}}
                        for k, v in val.get("by_source", {}).items()
                    ],
                    ["source", "samples", "mask_iou", "pixel_f1", "box_map50"],
                ),
            ),
            ("Run", key_values({k: v for k, v in metrics.items() if not isinstance(v, (dict, list))})),
            ("Training loss", f"<img src='{_loss_png(output, history)}'>"),
            ("Held-out frames: truth (left) and prediction (right)", "<img src='overlays.png' style='max-width:100%'>"),
            ("Per label", table(per_label, ["label", "pixel_recall", "label_accuracy", "box_ap50"])),
        ],
    )
    return path


def run_train_refiner(options: RefinerTrainOptions) -> dict:
    """`g2w hud-segmenter train-refiner`: train the full-resolution refiner of a (frozen) segmenter
    checkpoint through the shared harness. Writes RUN/model/ (the segmenter's files copied, plus
    hud_refiner.json + .safetensors: a complete checkpoint folder) and RUN/metrics.json (held-out
    full-size mask IoU, plain and refined, overall and per source)."""
    from g2w.models.hud_segmenter import (
        REFINER_CONFIG,
        REFINER_WEIGHTS,
        FullResRefiner,
        FullResRefinerConfig,
    )
    from g2w.runtime.train import run_fit
    from g2w.segment.predict import DEFAULT_CHECKPOINT
    from g2w.segment.refiner_task import RefinerTask
    from g2w.train import FitConfig

    o = options
    output = os.path.abspath(o.output)
    checkpoint = os.path.abspath(o.checkpoint or DEFAULT_CHECKPOINT)
    os.makedirs(output, exist_ok=True)
    task = RefinerTask(
        data=[os.path.abspath(d) for d in o.data],
        val=[os.path.abspath(v) for v in o.val],
        cache_dir=os.path.join(output, "cache"),
        checkpoint=checkpoint,
        model=asdict(FullResRefinerConfig.from_dict(o.refiner())),
        seed=o.seed,
        iou_weight=o.iou_weight,
        real_share=o.real_share,
    )
    train_n, val_n = len(sample_dirs(task.data)), len(sample_dirs(task.val))
    if not train_n or not val_n:
        raise ValueError(f"need pairs for training ({train_n} found) and validation ({val_n})")
    log.info(
        f"hud-segmenter train-refiner: {train_n} training pairs, {val_n} held-out, segmenter {checkpoint} -> {output}"
    )
    start = time.perf_counter()
    cfg = FitConfig(
        output=output,
        steps=o.steps,
        global_batch=o.batch_size,
        micro_batch=o.batch_size,
        lr=task.lr,
        weight_decay=WEIGHT_DECAY,
        warmup_steps=min(WARMUP_STEPS, o.steps),
        grad_clip=0.0,
        lr_schedule="cosine",
        num_workers=1,
        checkpoint_every=min(o.eval_every, o.steps),
        log_every=LOG_EVERY,
        seed=o.seed,
    )
    summary = run_fit(task, cfg)
    seconds = time.perf_counter() - start
    model_dir = os.path.join(output, "model")
    os.makedirs(model_dir, exist_ok=True)
    for name in (CONFIG_NAME, WEIGHTS_NAME):
        shutil.copy(os.path.join(checkpoint, name), os.path.join(model_dir, name))
    shutil.copy(os.path.join(output, "weights.safetensors"), os.path.join(model_dir, REFINER_WEIGHTS))
    with open(os.path.join(model_dir, REFINER_CONFIG), "w") as f:
        json.dump(task.model, f, indent=1)
    refiner = FullResRefiner.from_pretrained(model_dir)  # loads as the shipped one does
    if refiner is None:
        raise RuntimeError(f"{model_dir}: the refiner just written does not load")
    with open(os.path.join(output, "validation", "metrics.json")) as f:
        validation = json.load(f)
    metrics = {
        "validation": validation,
        "train_pairs": train_n,
        "val_pairs": val_n,
        "steps": o.steps,
        "seed": o.seed,
        "batch_size": o.batch_size,
        "train_seconds": round(seconds, 1),
        "segmenter": checkpoint,
        "mean_samples_per_s": summary.get("mean_samples_per_s"),
        "data": task.data,
        "val": task.val,
        "model": task.model,
        "iou_weight": o.iou_weight,
        "real_share": o.real_share,
        "parameters": sum(p.numel() for p in refiner.parameters()),
    }
    write_metrics(output, metrics)
    log.debug(json.dumps(validation, indent=1))
    log.info(f"model:   {model_dir}\nmetrics: {os.path.join(output, 'metrics.json')}")
    return metrics
