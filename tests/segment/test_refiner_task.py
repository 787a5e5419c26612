"""The refiner's harness task: its cached tiles score exactly what `Segmenter.frames` + `full_mask`
produce, and a few optimizer steps on its examples lower the loss (no Ray; `g2w hud-segmenter
train-refiner` runs this task through `g2w.runtime.train.run_fit`)."""

import numpy as np
import torch
import torch.nn.functional as F

from g2w.models.hud_segmenter import FullResRefiner
from g2w.segment.metrics import SegmentationScore
from g2w.segment.predict import DEFAULT_CHECKPOINT, Segmenter, full_mask
from g2w.segment.refiner_task import RefinerTask, add_frame, cached_pair_tiles, frame_records, refiner_loss
from g2w.segment.task import sample_dirs
from g2w.video import iter_masks, probe


def test_refiner_task_matches_inference_and_learns(synth_out, tmp_path):
    pair = sample_dirs([synth_out])[0]
    task = RefinerTask(data=[pair], val=[pair], cache_dir=str(tmp_path / "cache"), checkpoint=DEFAULT_CHECKPOINT)
    refiner = FullResRefiner.from_pretrained(DEFAULT_CHECKPOINT)
    records = frame_records(cached_pair_tiles(pair, task._segmenter(), task.config, task.cache_dir), refiner.margin)
    assert len(records) == 6

    # training-time scoring == the inference path, frame for frame (plain and refined)
    cached_plain, cached_refined = SegmentationScore(), SegmentationScore()
    for rec in records:
        add_frame(refiner, rec, [cached_plain], [cached_refined])
    src = f"{pair}/hud.mp4"
    info = probe(src)
    preds = list(Segmenter(DEFAULT_CHECKPOINT, threads=1, full_res=True).frames(src))
    ts = set(np.linspace(0, len(preds) - 1, 6).round().astype(int).tolist())
    plain, refined = SegmentationScore(), SegmentationScore()
    for k, truth in enumerate(iter_masks(f"{pair}/mask.mkv")):
        if k in ts:
            refined.add_pixels(full_mask(preds[k], info.width, info.height) > 0, truth >= 128)
            preds[k].full_res = None
            plain.add_pixels(full_mask(preds[k], info.width, info.height) > 0, truth >= 128)
    assert (cached_plain.tp, cached_plain.fp, cached_plain.fn) == (plain.tp, plain.fp, plain.fn)
    assert abs(cached_refined.tp - refined.tp) + abs(cached_refined.fp - refined.fp) <= 0.002 * (
        refined.tp + refined.fp
    )

    # examples and loss: a fresh refiner fits the pair's tiles better after a few steps
    model = task.build_model()
    opt = torch.optim.Adam(model.parameters(), 1e-2)
    gen = torch.Generator().manual_seed(0)
    batch = task.load_batch([0, 0])
    first = task.loss(model, batch, torch.Generator().manual_seed(1)).item()
    for _ in range(30):
        loss = task.loss(model, batch, gen)
        opt.zero_grad()
        loss.backward()
        opt.step()
    assert task.loss(model, batch, torch.Generator().manual_seed(1)).item() < first


def test_the_soft_iou_term_counts_misses_and_false_pixels_alike():
    truth = torch.zeros(2, 1, 8, 8)
    truth[0, 0, 2:4, 2:4] = 1  # 4 UI pixels among 128
    sure = (truth * 2 - 1) * 9  # confident and right everywhere
    missed = sure.clone()
    missed[0, 0, 2:4, 2:4] = -9  # every UI pixel missed
    false = sure.clone()
    false[1, 0, :2, :2] = 9  # as many false pixels instead
    assert torch.equal(refiner_loss(missed, truth), F.binary_cross_entropy_with_logits(missed, truth))
    for wrong in (missed, false):
        assert refiner_loss(wrong, truth, 1.0) - refiner_loss(wrong, truth) > 0.4  # soft IoU about 0.2 or 0.56
        assert refiner_loss(sure, truth, 1.0) - refiner_loss(sure, truth) < 0.05
